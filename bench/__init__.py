"""The load benchmark (issue 17): an instant model, a load driver, and a script that runs
both against a real stack. Nothing here is imported by the application."""
