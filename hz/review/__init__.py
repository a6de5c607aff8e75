"""Review: where a draft is placed (in the work tree, or on a `hz/draft/...` branch), how an approval or a
rejection of it is observed and recorded, and what runs once a draft is approved."""
