package job

import (
	"strings"
	"testing"
	"time"
)

const valid = `{"host":"device","port":830,"username_env":"U","password_env":"P",` +
	`"paced":true,"timeout_s":1.5,"framing":"1.0","reply_bytes":1024}`

func TestParseValid(t *testing.T) {
	j, err := Parse([]byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	if j.Host != "device" || j.Port != 830 || !j.Paced || j.Framing != "1.0" || j.ReplyBytes != 1024 {
		t.Fatalf("parsed %+v", j)
	}
	if j.Timeout() != 1500*time.Millisecond {
		t.Fatalf("timeout %v", j.Timeout())
	}
}

func TestParseHeadendJob(t *testing.T) {
	line := `{"host":"headend","port":443,"username_env":"U","password_env":"P",` +
		`"paced":true,"timeout_s":1,"device":"198.18.100.129"}`
	j, err := Parse([]byte(line))
	if err != nil || j.Host != "headend" || j.Device != "198.18.100.129" {
		t.Fatalf("parsed %+v, %v", j, err)
	}
}

func TestParseRefuses(t *testing.T) {
	cases := map[string]string{
		"unknown field":      `{"host":"d","port":22,"username_env":"U","password_env":"P","paced":true,"timeout_s":1,"password":"x"}`,
		"no host":            `{"port":22,"username_env":"U","password_env":"P","paced":true,"timeout_s":1}`,
		"bad port":           `{"host":"d","port":70000,"username_env":"U","password_env":"P","paced":true,"timeout_s":1}`,
		"no credential vars": `{"host":"d","port":22,"paced":true,"timeout_s":1}`,
		"free without cmds":  `{"host":"d","port":22,"username_env":"U","password_env":"P","timeout_s":1}`,
		"no timeout":         `{"host":"d","port":22,"username_env":"U","password_env":"P","paced":true}`,
		"bad framing":        `{"host":"d","port":22,"username_env":"U","password_env":"P","paced":true,"timeout_s":1,"framing":"2.0"}`,
		"not json":           `host=d`,
	}
	for name, line := range cases {
		if _, err := Parse([]byte(line)); err == nil {
			t.Errorf("%s: accepted", name)
		} else if !strings.HasPrefix(err.Error(), "job: ") {
			t.Errorf("%s: error %q without the job: prefix", name, err)
		}
	}
}

func TestCredentialsFromNamedVariables(t *testing.T) {
	j, _ := Parse([]byte(valid))
	env := map[string]string{"U": "labops", "P": "secret"}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	creds, err := j.Credentials(lookup)
	if err != nil || creds.Username != "labops" || creds.Password != "secret" {
		t.Fatalf("credentials %+v, %v", creds, err)
	}
	delete(env, "P")
	if _, err := j.Credentials(lookup); err == nil || !strings.Contains(err.Error(), "P not set") {
		t.Fatalf("missing password variable: %v", err)
	}
	if strings.Contains(valid, "secret") {
		t.Fatal("the job must not carry credential values")
	}
}
