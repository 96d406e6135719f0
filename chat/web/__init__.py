"""The web chat for end users: a page shell over the REST API, plus sign in and out."""
