package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
)

// Credentials are the single device account.
type Credentials struct {
	Username string
	Password string
}

// Matches compares in constant time. Hashing first gives both sides equal
// length, so the comparison time reveals neither value nor its length.
func (c Credentials) Matches(username, password string) bool {
	wantUser, gotUser := sha256.Sum256([]byte(c.Username)), sha256.Sum256([]byte(username))
	wantPass, gotPass := sha256.Sum256([]byte(c.Password)), sha256.Sum256([]byte(password))
	userOK := subtle.ConstantTimeCompare(wantUser[:], gotUser[:])
	passOK := subtle.ConstantTimeCompare(wantPass[:], gotPass[:])
	return userOK&passOK == 1
}

// authenticated requires HTTP Basic credentials; failures get a bare 401
// that does not say which part was wrong.
func (s *Server) authenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		username, password, ok := r.BasicAuth()
		if !ok || !s.creds.Matches(username, password) {
			s.recorder.AuthFailed(transportOf(r))
			w.Header().Set("WWW-Authenticate", `Basic realm="device", charset="UTF-8"`)
			writeText(w, http.StatusUnauthorized, "Unauthorized\n")
			return
		}
		next.ServeHTTP(w, r)
	})
}
