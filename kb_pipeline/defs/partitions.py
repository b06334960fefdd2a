"""One partition per document; the key is the document's id (see `kb_pipeline.sources`)."""

import dagster as dg

DOCUMENTS = "documents"
documents = dg.DynamicPartitionsDefinition(name=DOCUMENTS)
