"""The front ends: the flake8 plugin, the `weakglobals` command, and what they and the codemod share
(configuration, one file through the analysis, output formats, the terminal, parallel runs)."""
