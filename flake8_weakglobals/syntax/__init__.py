"""What one module's code says, read from its own `ast` and text alone: scopes and bindings, names qualified
through its imports, the expressions that build containers, and the lines that mention a word."""
