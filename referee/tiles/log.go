package tiles

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Entry is one line of the referee log: an accepted observation and its verdict.
type Entry struct {
	Seq     int         `json:"seq"`
	Obs     Observation `json:"obs"`
	Verdict Verdict     `json:"verdict"`
}

func encodeEntry(e Entry) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encode log entry %d: %w", e.Seq, err)
	}
	return append(b, '\n'), nil
}

// DecodeEntry parses one log line strictly: unknown fields and trailing
// data are errors.
func DecodeEntry(line []byte) (Entry, error) {
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return Entry{}, err
	}
	if dec.More() {
		return Entry{}, errors.New("trailing data after the entry")
	}
	if e.Seq < 1 {
		return Entry{}, fmt.Errorf("seq %d must be positive", e.Seq)
	}
	if e.Obs.Kind == "" {
		return Entry{}, errors.New("entry without an observation kind")
	}
	return e, nil
}

// Warning is something Replay noticed and got past.
type Warning struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

func (w Warning) String() string { return fmt.Sprintf("log line %d: %s", w.Line, w.Reason) }

// maxLogLine bounds one log line; an entry is a few hundred bytes.
const maxLogLine = 1 << 20

// Replay rebuilds a referee from its log. A torn last line (no newline and
// not decodable: the writer was cut off) is skipped with a warning. Any
// other malformed line, or an entry the rules now reject, is a *LogError
// (errors.Is ErrMalformedLog) with its line number; but a retract the
// rules now refuse (ErrNotRetractable: a verdict since came out
// otherwise) is a warning, its card left as judged. A verdict that differs
// from the one logged is a warning: the state follows today's rules.
// Further options (WithLog, to go on appending) apply to the returned
// referee; replayed entries are not written again.
func Replay(rd io.Reader, opts ...Option) (*Referee, []Warning, error) {
	r := New()
	var warns []Warning
	br := bufio.NewReaderSize(rd, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if len(line) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return nil, warns, &LogError{Line: n, Err: err}
		}
		torn := err == io.EOF
		body := bytes.TrimRight(line, "\r\n")
		e, derr := DecodeEntry(body)
		switch {
		case derr != nil && torn:
			warns = append(warns, Warning{Line: n, Reason: "torn last line (the writer was cut off); skipped"})
			return finish(r, warns, opts)
		case derr != nil:
			return nil, warns, &LogError{Line: n, Err: derr}
		case e.Seq != r.seq+1:
			return nil, warns, &LogError{Line: n, Err: fmt.Errorf("seq %d follows %d", e.Seq, r.seq)}
		}
		v, aerr := r.Apply(e.Obs)
		if errors.Is(aerr, ErrNotRetractable) {
			// taken back when logged, not under today's rules (a verdict
			// since differs): the card stays as judged, the rest goes on
			r.keepRefused(e.Obs, fmt.Sprintf("#%d not taken back on replay: %v", e.Obs.Retracts, aerr))
			warns = append(warns, Warning{Line: n, Reason: fmt.Sprintf("retract of #%d refused on replay, the card stays as judged: %v", e.Obs.Retracts, aerr)})
			if torn {
				break
			}
			continue
		}
		if aerr != nil {
			return nil, warns, &LogError{Line: n, Err: fmt.Errorf("entry rejected on replay: %w", aerr)}
		}
		if v != e.Verdict {
			warns = append(warns, Warning{Line: n, Reason: fmt.Sprintf("verdict differs on replay: logged %q, now %q", e.Verdict.Reason, v.Reason)})
		}
		if torn {
			break
		}
	}
	return finish(r, warns, opts)
}

func finish(r *Referee, warns []Warning, opts []Option) (*Referee, []Warning, error) {
	for _, o := range opts {
		o(r)
	}
	return r, warns, nil
}

// readLine reads one line with its newline, refusing lines over maxLogLine.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLogLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxLogLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return buf, err
	}
}
