"""Screens and dialogs of the review app."""
