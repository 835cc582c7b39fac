"""The review app's actions, one mixin per concern (hunks and files, findings,
jobs, panes); PorterApp combines them.  Message handlers stay on the app: Textual
collects ``@on`` handlers from the class that defines them."""
