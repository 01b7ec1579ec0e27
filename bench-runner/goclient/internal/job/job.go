// Package job reads what the runner asks the program to do: one mode's iterations against
// one target. Credentials are never in the job: it names the environment variables that
// hold them, as the runner's targets file does.
package job

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Job is the first line the runner writes on the program's standard input.
type Job struct {
	Host        string `json:"host"`
	Port        int    `json:"port"`
	UsernameEnv string `json:"username_env"`
	PasswordEnv string `json:"password_env"`
	// Commands of every iteration when not paced (a paced step brings its own).
	Commands []string `json:"commands,omitempty"`
	// Paced: run one iteration per line the runner writes (it marks its packet capture
	// between them); otherwise Warmup then Iterations back to back.
	Paced      bool    `json:"paced"`
	Warmup     int     `json:"warmup"`
	Iterations int     `json:"iterations"`
	TimeoutS   float64 `json:"timeout_s"`
	// NETCONF only: "1.0" or "1.1", and the size of each <get> reply.
	Framing    string `json:"framing,omitempty"`
	ReplyBytes int    `json:"reply_bytes,omitempty"`
	// Head-end modes only: the device the head-end runs the commands on; the host, the
	// port and the credentials' variables are then the head-end's.
	Device string `json:"device,omitempty"`
}

// Credentials are the username and password the job's variables hold.
type Credentials struct {
	Username string
	Password string
}

// Parse decodes and checks a job; unknown fields are refused, so a runner newer than the
// program fails loudly instead of being half understood.
func Parse(line []byte) (Job, error) {
	var j Job
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return Job{}, fmt.Errorf("job: %w", err)
	}
	if err := j.check(); err != nil {
		return Job{}, fmt.Errorf("job: %w", err)
	}
	return j, nil
}

func (j Job) check() error {
	switch {
	case j.Host == "":
		return errors.New("host is empty")
	case j.Port <= 0 || j.Port > 65535:
		return fmt.Errorf("port %d out of range", j.Port)
	case j.UsernameEnv == "" || j.PasswordEnv == "":
		return errors.New("username_env and password_env must name environment variables")
	case !j.Paced && len(j.Commands) == 0:
		return errors.New("no commands (a job that is not paced runs the job's commands)")
	case j.Warmup < 0 || j.Iterations < 0:
		return errors.New("warmup and iterations must not be negative")
	case j.TimeoutS <= 0:
		return errors.New("timeout_s must be positive")
	case j.Framing != "" && j.Framing != "1.0" && j.Framing != "1.1":
		return fmt.Errorf("framing %q: want 1.0 or 1.1", j.Framing)
	case j.ReplyBytes < 0:
		return errors.New("reply_bytes must not be negative")
	}
	return nil
}

// Timeout is the job's per-operation timeout.
func (j Job) Timeout() time.Duration {
	return time.Duration(j.TimeoutS * float64(time.Second))
}

// Credentials reads the job's variables with lookup (os.LookupEnv); both must be set.
func (j Job) Credentials(lookup func(string) (string, bool)) (Credentials, error) {
	user, ok := lookup(j.UsernameEnv)
	if !ok || user == "" {
		return Credentials{}, fmt.Errorf("environment variable %s not set", j.UsernameEnv)
	}
	password, ok := lookup(j.PasswordEnv)
	if !ok {
		return Credentials{}, fmt.Errorf("environment variable %s not set", j.PasswordEnv)
	}
	return Credentials{Username: user, Password: password}, nil
}
