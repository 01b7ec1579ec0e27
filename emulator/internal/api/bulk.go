package api

import (
	"net/http"

	"transportlab/emulator/internal/tunnel"
)

// handleBulk serves the tunnel target's fixed-size payloads (10M, 100M, 1G)
// over the API itself: the direct transfer that downloads through ssh -L are
// compared with, so both move the same bytes.
func handleBulk(w http.ResponseWriter, r *http.Request) {
	size, ok := tunnel.Sizes["/"+r.PathValue("size")]
	if !ok {
		writeText(w, http.StatusNotFound, "% Unknown size; use /bulk/10M, /bulk/100M or /bulk/1G\n")
		return
	}
	tunnel.ServePayload(w, r, size)
}
