// Package buildinfo holds the build identity injected by the Makefile through
// -ldflags. The Connector Card's "build" object and GET /health both read it,
// so the two always agree (protocol 3.0 §4.3).
package buildinfo

// Set with -ldflags "-X github.com/adb-connector/adb-connector/internal/buildinfo.Version=..."
// and likewise for GitTag, GitRev and BuildTime. The defaults describe a
// development build made without the Makefile.
var (
	Version   = "0.0.0-dev"
	GitTag    = ""
	GitRev    = "unknown"
	BuildTime = "0000000000"
)

// TimeLayout is the layout of BuildTime (UTC, yymmddHHMM): the Makefile's
// `date -u +%y%m%d%H%M` for a build, the commit time for a release, which
// must not vary from one build of the same commit to the next.
const TimeLayout = "0601021504"

// Info is the build identity in the wire shape of protocol 3.0 §4.1 "build".
type Info struct {
	Version   string `json:"version"`
	GitTag    string `json:"git_tag"`
	GitRev    string `json:"git_rev"`
	BuildTime string `json:"build_time"`
}

// Get returns the build identity of this binary. Safe for concurrent use.
func Get() Info {
	return Info{Version: Version, GitTag: GitTag, GitRev: GitRev, BuildTime: BuildTime}
}
