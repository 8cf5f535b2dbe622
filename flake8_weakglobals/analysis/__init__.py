"""The one analysis that the linter and the codemod share: what counts as a framework object, the survey of
candidates, the uses of each container, the evidence of what it holds, and who else owns it."""
