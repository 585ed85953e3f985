"""The vocabulary every layer shares: node identities (and the records built on them).

``model`` imports nothing else of Headwater, so any layer may depend on it: the store names the
nodes it derives with it, the graph reads answer with it, the API parses request parameters
into it. Nothing here touches a database or the network.
"""
