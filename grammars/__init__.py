"""Tree-sitter query files (data). Loaded through porter.parse.load_query."""
