package synth

import (
	"strconv"
	"strings"
)

// tool is one tool the synthetic agent registers.
type tool struct {
	name, desc string
	// argKey is the single argument the tool takes ("" = none).
	argKey string
}

// The agent's registry, in registration order. backup_status declares
// argumentsFrom: [fleet_report] when Config.Findings is set.
var registry = []tool{
	{"fleet_report", "Lists every host id in the fleet with its role, zone and owner.", ""},
	{"host_metrics", "Reads CPU, memory, disk and temperature figures for one host id from fleet_report.", "host"},
	{"backup_status", "Reports the recent backups of one host id that fleet_report listed.", "host"},
	{"ticket_search", "Searches the incident tracker and returns matching tickets with their status.", "query"},
}

const (
	toolFleet   = 0
	toolMetrics = 1
	toolBackup  = 2
	toolTickets = 3

	// ghostTool is the name the provider's wire manifest carries on the
	// first call when Config.Findings is set, though nothing composed it.
	ghostTool = "legacy_shell"

	agentID    = "agent"
	skillID    = "fleet-ops"
	skillDesc  = "Fleet operations runbook."
	basePrompt = "You are the on-call assistant for a fleet of servers. Answer only from tool results and quote host ids exactly as the tools return them."
	skillPiece = "Runbook: confirm a host id with fleet_report before calling a tool that takes one; prefer the newest figures."
)

var (
	roles  = []string{"db", "web", "cache", "batch", "queue", "edge"}
	zones  = []string{"eu-west-1a", "eu-west-1b", "eu-central-1a", "us-east-1c", "ap-south-1a"}
	owners = []string{"storage", "payments", "search", "platform", "data", "identity"}
	// words mixes in non-ASCII text, an astral character included, so that
	// hashes over UTF-16 code units differ from hashes over bytes.
	words = []string{"nominal", "degraded", "recovering", "patched", "rebooted", "drained",
		"température", "Zürich", "failover", "scrubbed", "—", "✓", "quota", "replica",
		"lag", "warm", "cold", "🔥", "snapshot", "rotated", "pinned", "throttled"}
	prompts = []string{
		"Check last night's backups across the fleet and tell me which hosts are at risk.",
		"Which database hosts ran hot this week, and did their backups still complete?",
		"Audit the edge hosts: any missed backups or open incidents I should know about?",
		"Go through the fleet and list every host whose latest backup is older than a day.",
	}
)

// hostName is the i-th host of the fleet, e.g. "db-07".
func hostName(i int) string {
	r := roles[i%len(roles)]
	n := i/len(roles) + 1
	if n < 10 {
		return r + "-0" + strconv.Itoa(n)
	}
	return r + "-" + strconv.Itoa(n)
}

const fleetSize = 48

// clock renders a fixed-looking UTC time of day from a minute count.
func appendClock(b []byte, minutes int) []byte {
	h, m := (minutes/60)%24, minutes%60
	if h < 10 {
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, int64(h), 10)
	b = append(b, ':')
	if m < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, int64(m), 10)
}

func appendPct(b []byte, r *rng) []byte {
	b = strconv.AppendInt(b, int64(r.between(3, 99)), 10)
	return append(b, '%')
}

// toolResult writes a result of about n bytes for a call of tool t. The
// first line is plain ASCII longer than 80 characters, so contentSummary
// cuts never fall inside a multi-unit character.
func toolResult(r *rng, t int, arg string, n int) string {
	b := make([]byte, 0, n+160)
	switch t {
	case toolFleet:
		b = append(b, "fleet_report: 48 hosts across 5 zones, inventory as of the last sync (ids are case-sensitive)\n"...)
	case toolMetrics:
		b = append(b, "host_metrics for "...)
		b = append(b, arg...)
		b = append(b, ": samples every 5 minutes, newest first, figures averaged per sample window\n"...)
	case toolBackup:
		b = append(b, "backup_status for "...)
		b = append(b, arg...)
		b = append(b, ": recent backup jobs, newest first, sizes in GiB, durations in minutes\n"...)
	default:
		b = append(b, "ticket_search for \""...)
		b = append(b, arg...)
		b = append(b, "\": matching incidents, newest first, with status and assignee team\n"...)
	}
	for i := 0; len(b) < n; i++ {
		switch t {
		case toolFleet:
			h := r.intn(fleetSize)
			b = append(b, "host "...)
			b = append(b, hostName(h)...)
			b = append(b, " role="...)
			b = append(b, roles[h%len(roles)]...)
			b = append(b, " zone="...)
			b = append(b, zones[r.intn(len(zones))]...)
			b = append(b, " owner="...)
			b = append(b, owners[r.intn(len(owners))]...)
		case toolMetrics:
			b = append(b, "t="...)
			b = appendClock(b, 1440-5*i)
			b = append(b, " cpu="...)
			b = appendPct(b, r)
			b = append(b, " mem="...)
			b = appendPct(b, r)
			b = append(b, " disk="...)
			b = appendPct(b, r)
			b = append(b, " temp="...)
			b = strconv.AppendInt(b, int64(r.between(31, 78)), 10)
			b = append(b, "°C"...)
		case toolBackup:
			b = append(b, "job bk-"...)
			b = strconv.AppendInt(b, int64(r.between(10000, 99999)), 10)
			b = append(b, " started="...)
			b = appendClock(b, r.intn(1440))
			b = append(b, " size="...)
			b = strconv.AppendInt(b, int64(r.between(1, 900)), 10)
			b = append(b, " took="...)
			b = strconv.AppendInt(b, int64(r.between(1, 240)), 10)
			if r.intn(9) == 0 {
				b = append(b, " status=failed"...)
			} else {
				b = append(b, " status=ok"...)
			}
		default:
			b = append(b, "INC-"...)
			b = strconv.AppendInt(b, int64(r.between(1000, 9999)), 10)
			b = append(b, " team="...)
			b = append(b, owners[r.intn(len(owners))]...)
			b = append(b, " status=open"...)
		}
		// a random record id per line gives the text the entropy of real
		// tool output (ids, hashes), so compression ratios stay realistic
		b = append(b, " id="...)
		id := r.next()
		for k := 0; k < 12; k++ {
			b = append(b, hexDigits[id&15])
			id >>= 4
		}
		b = append(b, " note="...)
		b = append(b, words[r.intn(len(words))]...)
		b = append(b, '\n')
	}
	return string(b)
}

// finalAnswer is the run's last assistant text.
func finalAnswer(r *rng) string {
	late := r.between(1, 6)
	var sb strings.Builder
	sb.WriteString("Backups are current on ")
	sb.WriteString(strconv.Itoa(fleetSize - late))
	sb.WriteString(" of ")
	sb.WriteString(strconv.Itoa(fleetSize))
	sb.WriteString(" hosts; at risk:")
	for i := 0; i < late; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteByte(' ')
		sb.WriteString(hostName(r.intn(fleetSize)))
	}
	sb.WriteString(". Their last good backup is older than 24 hours.")
	return sb.String()
}

// ToolNames are the names of the tools the generated agent registers, in
// registration order: what declarations for its runs name.
func ToolNames() []string {
	names := make([]string, len(registry))
	for i, t := range registry {
		names[i] = t.name
	}
	return names
}
