"""Measurement, one home for it: the `benchmark` management command and its sections, the
paced and instant models, and the load and concurrency drivers with the scripts that run
them against a real stack. A Django app on top of the layers: it imports the product apps,
and none of them imports it."""
