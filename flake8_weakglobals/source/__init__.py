"""Files and text, before any Python meaning: finding and reading source files byte-faithfully, `# noqa`
as flake8 applies it, and each module parsed once per run. Imports nothing else of ours."""
