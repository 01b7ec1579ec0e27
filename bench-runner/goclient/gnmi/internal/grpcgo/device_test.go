package grpcgo

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"math/big"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"transportlab/goclient/internal/job"
)

// device is an in-process gNMI server over TLS on loopback holding interfaces' names and
// descriptions, as the contract has the lab device answer: Get (PROTO leaves of
// /interfaces, JSON_IETF configuration of one interface), Set of descriptions, Subscribe
// ONCE and POLL of configurations, STREAM ON_CHANGE of descriptions and SAMPLE of
// counters. It counts connections and RPCs and refuses calls without the credentials.
type device struct {
	gpb.UnimplementedGNMIServer
	addr        *net.TCPAddr
	connections atomic.Int64
	gets        atomic.Int64
	sets        atomic.Int64
	mu          sync.Mutex
	names       []string
	descr       map[string]string
	watchers    []chan *gpb.Notification
	// getPaths is the number of paths each Get asked for.
	getPaths []int
}

var creds = job.Credentials{Username: "labops", Password: "s3cret"}

const answerTimeout = 10 * time.Second

// countingListener counts the TCP connections the server accepts.
type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

func startDevice(t *testing.T) *device {
	t.Helper()
	d := &device{
		names: []string{"Loopback0", "GigabitEthernet1", "GigabitEthernet2"},
		descr: map[string]string{"GigabitEthernet1": "uplink"},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d.addr = ln.Addr().(*net.TCPAddr)
	tlsConf := &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}}
	server := grpc.NewServer(grpc.Creds(credentials.NewTLS(tlsConf)),
		grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := authorized(ctx); err != nil {
				return nil, err
			}
			return h(ctx, req)
		}),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if err := authorized(ss.Context()); err != nil {
				return err
			}
			return h(srv, ss)
		}))
	gpb.RegisterGNMIServer(server, d)
	go func() { _ = server.Serve(countingListener{ln, &d.connections}) }()
	t.Cleanup(server.Stop)
	return d
}

func authorized(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	if first(md["username"]) != creds.Username || first(md["password"]) != creds.Password {
		return status.Error(codes.Unauthenticated, "bad credentials")
	}
	return nil
}

func first(values []string) string {
	if len(values) == 0 {
		return ""
	}
	return values[0]
}

func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "device"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func (d *device) job() job.Job {
	return job.Job{
		Host: "127.0.0.1", Port: d.addr.Port, UsernameEnv: "U", PasswordEnv: "P",
		Paced: true, TimeoutS: answerTimeout.Seconds(),
	}
}

func (d *device) description(name string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	value, ok := d.descr[name]
	return value, ok
}

func stringVal(s string) *gpb.TypedValue {
	return &gpb.TypedValue{Value: &gpb.TypedValue_StringVal{StringVal: s}}
}

// configJSON is one interface's configuration as JSON_IETF.
func (d *device) configJSON(name string) *gpb.Update {
	config := map[string]string{"name": name}
	if value, ok := d.descr[name]; ok {
		config["description"] = value
	}
	text, _ := json.Marshal(map[string]any{"openconfig-interfaces:config": config})
	return &gpb.Update{Path: configPath(name), Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: text}}}
}

func (d *device) Get(_ context.Context, req *gpb.GetRequest) (*gpb.GetResponse, error) {
	d.gets.Add(1)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.getPaths = append(d.getPaths, len(req.GetPath()))
	notification := &gpb.Notification{Timestamp: time.Now().UnixNano()}
	for _, path := range req.GetPath() {
		if len(path.GetElem()) == 1 { // /interfaces: every configuration leaf, PROTO
			for _, name := range d.names {
				notification.Update = append(notification.Update, &gpb.Update{Path: interfacePath(name, "config", "name"), Val: stringVal(name)})
				if value, ok := d.descr[name]; ok {
					notification.Update = append(notification.Update, &gpb.Update{Path: descriptionPath(name), Val: stringVal(value)})
				}
			}
			continue
		}
		name, _ := interfaceLeaf(path.GetElem())
		notification.Update = append(notification.Update, d.configJSON(name))
	}
	return &gpb.GetResponse{Notification: []*gpb.Notification{notification}}, nil
}

func (d *device) Set(_ context.Context, req *gpb.SetRequest) (*gpb.SetResponse, error) {
	d.sets.Add(1)
	d.mu.Lock()
	defer d.mu.Unlock()
	response := &gpb.SetResponse{Timestamp: time.Now().UnixNano()}
	changed := &gpb.Notification{Timestamp: response.Timestamp}
	for _, path := range req.GetDelete() {
		name, _ := interfaceLeaf(path.GetElem())
		delete(d.descr, name)
		response.Response = append(response.Response, &gpb.UpdateResult{Path: path, Op: gpb.UpdateResult_DELETE})
	}
	for _, update := range req.GetUpdate() {
		name, _ := interfaceLeaf(update.GetPath().GetElem())
		d.descr[name] = update.GetVal().GetStringVal()
		response.Response = append(response.Response, &gpb.UpdateResult{Path: update.GetPath(), Op: gpb.UpdateResult_UPDATE})
		changed.Update = append(changed.Update, update)
	}
	for _, watcher := range d.watchers {
		select {
		case watcher <- changed:
		default: // a subscription that ended
		}
	}
	return response, nil
}

func (d *device) Subscribe(stream gpb.GNMI_SubscribeServer) error {
	request, err := stream.Recv()
	if err != nil {
		return err
	}
	list := request.GetSubscribe()
	sync := &gpb.SubscribeResponse{Response: &gpb.SubscribeResponse_SyncResponse{SyncResponse: true}}
	state := func() error {
		d.mu.Lock()
		notification := &gpb.Notification{Timestamp: time.Now().UnixNano()}
		for _, s := range list.GetSubscription() {
			name, _ := interfaceLeaf(s.GetPath().GetElem())
			notification.Update = append(notification.Update, d.configJSON(name))
		}
		d.mu.Unlock()
		if err := stream.Send(&gpb.SubscribeResponse{Response: &gpb.SubscribeResponse_Update{Update: notification}}); err != nil {
			return err
		}
		return stream.Send(sync)
	}
	switch list.GetMode() {
	case gpb.SubscriptionList_ONCE:
		return state()
	case gpb.SubscriptionList_POLL:
		if err := state(); err != nil {
			return err
		}
		for {
			if _, err := stream.Recv(); err != nil {
				return nil
			}
			if err := state(); err != nil {
				return err
			}
		}
	}
	if list.GetSubscription()[0].GetMode() == gpb.SubscriptionMode_SAMPLE {
		return sample(stream, sync, time.Duration(list.GetSubscription()[0].GetSampleInterval()))
	}
	changes := make(chan *gpb.Notification, 16)
	d.mu.Lock()
	d.watchers = append(d.watchers, changes)
	d.mu.Unlock()
	if err := stream.Send(sync); err != nil {
		return err
	}
	for {
		select {
		case notification := <-changes:
			if err := stream.Send(&gpb.SubscribeResponse{Response: &gpb.SubscribeResponse_Update{Update: notification}}); err != nil {
				return err
			}
		case <-stream.Context().Done():
			return nil
		}
	}
}

func sample(stream gpb.GNMI_SubscribeServer, sync *gpb.SubscribeResponse, interval time.Duration) error {
	if err := stream.Send(sync); err != nil {
		return err
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			update := &gpb.Notification{Timestamp: time.Now().UnixNano()}
			if err := stream.Send(&gpb.SubscribeResponse{Response: &gpb.SubscribeResponse_Update{Update: update}}); err != nil {
				return err
			}
		case <-stream.Context().Done():
			return nil
		}
	}
}
