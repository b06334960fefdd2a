"""What every reader reads a document with: sentences and spans of a chunk's text, the PDF's
layout and list layouts, the formulas in the text, and what is made once per document."""
