"""The session plugins the catalog's rows name, one module per client library (and the
pure pieces they share). A module here imports its library at the top: the runner imports
it only when a mode of that client runs."""
