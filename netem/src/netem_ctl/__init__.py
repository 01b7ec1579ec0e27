"""Transport Lab netem sidecar: impairs the device's benchmark ports and serves the control API."""
