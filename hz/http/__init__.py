"""The one HTTP client every remote API goes through: the forge, `github:`, `jira:`, feeds and publishes.

`budget` holds the tick's time for remote requests (light: an idle tick imports no HTTP library);
`client` makes the requests, each within an overall deadline, a size cap as sent and as inflated, and
redirects followed only within the origin asked; `jsonvalue` reads an answer's JSON with its nesting
bounded. A server decides how fast, how much and how deep it answers, so none of those is left to it.
"""
