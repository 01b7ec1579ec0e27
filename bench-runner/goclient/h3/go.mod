module transportlab/goclient/h3

go 1.26.0

// The job, loop, report and program packages are goclient's, from the directory above; a
// module of its own keeps quic-go's requirements (a newer golang.org/x/crypto) out of the
// scrapligo build, whose SSH client is golang.org/x/crypto/ssh.
replace transportlab/goclient => ../

require (
	github.com/quic-go/quic-go v0.65.0
	transportlab/goclient v0.0.0-00010101000000-000000000000
)

require (
	github.com/BurntSushi/toml v1.4.1-0.20240526193622-a339e1f7089c // indirect
	github.com/quic-go/qpack v0.6.0 // indirect
	golang.org/x/crypto v0.57.0 // indirect
	golang.org/x/exp/typeparams v0.0.0-20231108232855-2478ac86f678 // indirect
	golang.org/x/mod v0.41.0 // indirect
	golang.org/x/net v0.59.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
	honnef.co/go/tools v0.8.2 // indirect
)

tool honnef.co/go/tools/cmd/staticcheck
