package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"transportlab/emulator/internal/engine"
)

// TestPagingAppliesToFilteredOutput: --More-- counts the lines a modifier
// lets through, not the command's whole output.
func TestPagingAppliesToFilteredOutput(t *testing.T) {
	var body strings.Builder
	for k := 1; k <= 30; k++ {
		fmt.Fprintf(&body, "line %d %s\n", k, map[bool]string{true: "even", false: "odd"}[k%2 == 0])
	}
	lines, err := engine.ParseTranscript("show lines", body.String())
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Options{Hostname: "lab-r1", StartedAt: time.Now()}, []engine.Transcript{lines})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	// Length 10: the 15 even lines page after 9; the 30 lines counted by
	// "count" are one line and never page.
	input := "terminal length 10\rshow lines | include even\r show lines | count\r"
	if err := RunInteractive(e.NewSession(true), strings.NewReader(input), &out, &countingRecorder{}); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	want.WriteString("lab-r1#terminal length 10\r\nlab-r1#show lines | include even\r\n")
	for k := 2; k <= 30; k += 2 {
		if k == 20 {
			want.WriteString(morePrompt + moreErase)
		}
		fmt.Fprintf(&want, "line %d even\r\n", k)
	}
	want.WriteString("lab-r1#show lines | count\r\nNumber of lines which match regexp = 30\r\nlab-r1#")
	if out.String() != want.String() {
		t.Fatalf("got  %q\nwant %q", out.String(), want.String())
	}
}
