"""The codemod: ``python -m fixes.apply PATH`` rewrites what flake8-weakglobals finds into its runtime."""
