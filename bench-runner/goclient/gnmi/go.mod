module transportlab/goclient/gnmi

go 1.26.0

// The job, loop, report and program packages are goclient's, from the directory above; a
// module of its own keeps grpc-go's requirements (golang.org/x/net, protobuf, genproto) out of
// the scrapligo build and quic-go's.
replace transportlab/goclient => ../

require (
	github.com/openconfig/gnmi v0.14.1
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
	transportlab/goclient v0.0.0-00010101000000-000000000000
)

require (
	github.com/BurntSushi/toml v1.4.1-0.20240526193622-a339e1f7089c // indirect
	golang.org/x/exp/typeparams v0.0.0-20231108232855-2478ac86f678 // indirect
	golang.org/x/mod v0.41.0 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
	honnef.co/go/tools v0.8.2 // indirect
)

tool honnef.co/go/tools/cmd/staticcheck
