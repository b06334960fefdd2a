"""The review desk (docs/review.md): the web app on top of the review domain (review/) — routers,
templates, request dependencies and the sign-in glue. Experts approve, edit or reject entries
beside the source page."""
