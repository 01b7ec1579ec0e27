package openconfig

import "testing"

func TestPathString(t *testing.T) {
	p := Path{E("interfaces"), K("interface", "name", `odd]name\`), E("config")}
	if got := p.String(); got != `/interfaces/interface[name=odd\]name\\]/config` {
		t.Errorf("%s", got)
	}
	if got := (Path{}).String(); got != "/" {
		t.Errorf("root %s", got)
	}
	if got := p.Shape(); got != "/interfaces/interface/config" {
		t.Errorf("shape %s", got)
	}
}

func TestMatches(t *testing.T) {
	leaf := Path{E("interfaces"), K("interface", "name", "Gi1"), E("config"), E("description")}
	for _, check := range []struct {
		request Path
		want    bool
	}{
		{Path{}, true},
		{Path{E("interfaces")}, true},
		{Path{E("interfaces"), E("interface")}, true},
		{Path{E("interfaces"), K("interface", "name", "*")}, true},
		{Path{E("interfaces"), K("interface", "name", "Gi1")}, true},
		{Path{E("interfaces"), K("interface", "name", "Gi2")}, false},
		{Path{E("interfaces"), K("interface", "index", "Gi1")}, false},
		{Path{E("*"), E("*"), E("config")}, true},
		{Path{E("system")}, false},
		{append(leaf[:4:4], E("more")), false},
	} {
		if got := check.request.Matches(leaf); got != check.want {
			t.Errorf("%s matches %s: %v", check.request, leaf, got)
		}
	}
}

func TestInSchema(t *testing.T) {
	for path, want := range map[string]bool{
		"/":                            true,
		"/interfaces/interface/config": true,
		"/interfaces/interface/state/counters/in-octets": true,
		"/*/*/config/description":                        true,
		"/interfaces/interface/config/speed":             false,
		"/bogus":                                         false,
	} {
		var p Path
		if path != "/" {
			for _, name := range splitNames(path) {
				p = append(p, E(name))
			}
		}
		if got := InSchema(p); got != want {
			t.Errorf("InSchema(%s) = %v", path, got)
		}
	}
}

func splitNames(path string) []string {
	var out []string
	start := 1
	for k := 1; k <= len(path); k++ {
		if k == len(path) || path[k] == '/' {
			out = append(out, path[start:k])
			start = k + 1
		}
	}
	return out
}
