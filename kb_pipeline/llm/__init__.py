"""The language model extraction may ask: which one (endpoint.py), the client with its retries
and answer cache (model.py), the embedded llama.cpp server (local_server.py) and one call's
accounting (usage.py). Infrastructure, not extraction: what the model is asked, and what is
kept of its answers, is the knowledge package's (knowledge/model/definition_picker.py)."""
