"""Example services: templates to copy, not part of the installed package (see notes/README.md)."""
