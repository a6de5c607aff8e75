"""Input adapters: each URI scheme's reader, its canonical facets and their fingerprints, and the source cache.

`hz.registry.SOURCE_SCHEMES` is the one list of schemes; each names the module here that reads it. The
package imports nothing heavy at its top level: an adapter module is imported when a source of its
scheme is fetched.
"""
