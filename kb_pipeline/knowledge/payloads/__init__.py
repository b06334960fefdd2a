"""What the knowledge branch writes: the payload contracts, their ids, the span check that admits
every value, the checks on a whole set, the review queue, and the payload folder and kept
versions on disk."""
