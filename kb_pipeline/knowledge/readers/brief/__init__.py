"""The brief's readers: the document's title and its statement of purpose."""
