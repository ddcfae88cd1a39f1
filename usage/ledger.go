package usage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"time"

	"github.com/researchctx/researchctx/internal/safefs"
)

// ErrTurnSpent is returned by Log.Reserve when the turn's budget is
// used up, counting the reservations of calls still in flight.
var ErrTurnSpent = errors.New("the turn's reading budget is spent")

// Log is the usage log of one grant as the processes serving it share
// it: it makes the turn's budget exact across goroutines and processes.
//
// A call reserves before it builds its result: under an exclusive lock on
// usage.jsonl it reads what was appended since it last looked, sums the
// turn's settled characters and the reservations still in flight, and
// appends a reservation record for at most what remains. It then builds its
// result within the reservation, without the lock, and settles: it appends
// its usage line (the fields of docs/contract.md §6, plus the reservation it settles) under
// the lock. A call that fails appends a release instead. The turn's total is
// settled characters plus open reservations, so no interleaving of calls,
// in one process or many, hands out more than the turn's budget.
//
// A reservation names the process (pid and host) that holds it. One whose
// process is gone — a server killed mid-call — is dropped by every reader,
// so it cannot hold the budget forever. One from another host, whose pid
// cannot be checked, counts until its turn ends (a new turn id starts a
// new budget).
//
// A Log is safe for concurrent use, and several Logs on one file,
// in one process or many, exclude each other.
type Log struct {
	path string
	pid  int
	host string
	tag  string // random per Log, so reservation ids never repeat

	mu      sync.Mutex
	seq     uint64
	off     int64       // bytes of the log read so far (complete lines)
	file    os.FileInfo // the file read so far, to notice a replaced log
	settled map[string]int
	pending holds // open reservations, summed by turn and process
}

// holds sums the open reservations of a log by turn and by the process
// that holds them, so that a call looks at each process once, not at
// every reservation ever left open: a log with millions of reservation
// lines costs one liveness check per process that still holds some.
type holds struct {
	turns map[string]map[procKey]*holder
	byID  map[string]holdRef
}

// procKey names the process that made a reservation.
type procKey struct {
	host string
	pid  int
}

// holder is what one process holds open in one turn.
type holder struct {
	sum int            // saturating sum of ids' characters
	ids map[string]int // reservation id → characters
}

// holdRef finds a reservation by its id.
type holdRef struct {
	turn string
	key  procKey
}

func newHolds() holds {
	return holds{turns: map[string]map[procKey]*holder{}, byID: map[string]holdRef{}}
}

// add records an open reservation; a repeated id is ignored.
func (h *holds) add(rec reserveRecord) {
	if _, ok := h.byID[rec.ID]; ok {
		return
	}
	key := procKey{rec.Host, rec.PID}
	procs := h.turns[rec.TurnID]
	if procs == nil {
		procs = map[procKey]*holder{}
		h.turns[rec.TurnID] = procs
	}
	hd := procs[key]
	if hd == nil {
		hd = &holder{ids: map[string]int{}}
		procs[key] = hd
	}
	hd.ids[rec.ID] = rec.Chars
	hd.sum = addChars(hd.sum, rec.Chars)
	h.byID[rec.ID] = holdRef{rec.TurnID, key}
}

// remove forgets the reservation id (settled or released), if open.
func (h *holds) remove(id string) {
	ref, ok := h.byID[id]
	if !ok {
		return
	}
	delete(h.byID, id)
	hd := h.turns[ref.turn][ref.key]
	chars := hd.ids[id]
	delete(hd.ids, id)
	switch {
	case len(hd.ids) == 0:
		h.drop(ref.turn, ref.key)
	case hd.sum == math.MaxInt:
		// A saturated sum cannot be taken from: add up what is left.
		hd.sum = 0
		for _, c := range hd.ids {
			hd.sum = addChars(hd.sum, c)
		}
	default:
		hd.sum -= chars
	}
}

// drop forgets everything a process holds in a turn.
func (h *holds) drop(turn string, key procKey) {
	procs := h.turns[turn]
	for id := range procs[key].ids {
		delete(h.byID, id)
	}
	delete(procs, key)
	if len(procs) == 0 {
		delete(h.turns, turn)
	}
}

func (h *holds) clear() {
	clear(h.turns)
	clear(h.byID)
}

// heldHere holds the ids of the reservations this process holds open, in
// any Log: a reservation with this process's pid that is not here was
// made by an earlier process with the same pid, which is gone.
var heldHere sync.Map

// Open returns the Log at path (usage.jsonl beside a grant; see
// UsagePath). It does no I/O: the file is created on first use.
func Open(path string) *Log {
	var b [6]byte
	_, _ = rand.Read(b[:])
	host, _ := os.Hostname()
	return &Log{
		path: path, pid: os.Getpid(), host: host, tag: hex.EncodeToString(b[:]),
		settled: map[string]int{}, pending: newHolds(),
	}
}

// Reservation is budget held by one call until it settles or releases it.
type Reservation struct {
	log   *Log
	id    string
	turn  string
	chars int
	done  bool
}

// Chars returns the characters reserved: the most the call may return.
func (r *Reservation) Chars() int { return r.chars }

// reserveWait bounds how long Reserve waits for calls in flight to settle
// when their reservations hold all that remains.
const reserveWait = 10 * time.Second

// Reserve reserves up to want characters of turn turnID, whose budget is
// turnChars, and returns the reservation and the characters the turn had
// used or reserved before it. When less than want remains while calls in
// flight hold reservations, it waits (up to ctx and a few seconds) for
// them to settle, since they usually return far less than they hold: an
// agent's parallel calls then get the whole budget between them, not a
// sliver each. After the wait it reserves what remains; when nothing
// does, the error wraps ErrTurnSpent. A ctx already cancelled or past its
// deadline reserves nothing and gives ctx.Err().
func (l *Log) Reserve(ctx context.Context, turnID string, turnChars, want int) (*Reservation, int, error) {
	if err := ctx.Err(); err != nil {
		// A call whose context ended reserves nothing: it would return
		// nothing to hand the characters to.
		return nil, 0, err
	}
	if want <= 0 {
		return nil, 0, fmt.Errorf("reserving %d characters: want must be positive", want)
	}
	deadline := time.Now().Add(reserveWait)
	pause := time.Millisecond
	for {
		waited := time.Now().After(deadline) || ctx.Err() != nil
		r, used, waiting, err := l.tryReserve(turnID, turnChars, want, waited)
		if err != nil || r != nil {
			return r, used, err
		}
		if !waiting || waited {
			return nil, used, fmt.Errorf("%w: %d of %d characters used or held by calls in flight", ErrTurnSpent, min(used, turnChars), turnChars)
		}
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// tryReserve reserves min(want, what remains), or nothing and waiting set
// when calls in flight hold what would make up want; with partial, it
// reserves what remains whatever is held.
func (l *Log) tryReserve(turnID string, turnChars, want int, partial bool) (r *Reservation, used int, waiting bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	err = withUsageLock(l.path, func(f *safefs.File, st os.FileInfo) error {
		if err := l.sync(f, st); err != nil {
			return err
		}
		held, others := l.held(turnID)
		used = addChars(l.settled[turnID], held)
		rem := turnChars - used
		if rem <= 0 || rem < want && others && !partial {
			waiting = others
			return nil
		}
		l.seq++
		rec := reserveRecord{
			ID: fmt.Sprintf("%d-%s-%d", l.pid, l.tag, l.seq), TurnID: turnID,
			Chars: min(want, rem), PID: l.pid, Host: l.host,
		}
		data, err := json.Marshal(struct {
			At      time.Time     `json:"at"`
			Reserve reserveRecord `json:"reserve"`
		}{time.Now().UTC(), rec})
		if err != nil {
			return err
		}
		if err := l.append(f, st, append(data, '\n')); err != nil {
			return err
		}
		l.pending.add(rec)
		heldHere.Store(rec.ID, true)
		r = &Reservation{log: l, id: rec.ID, turn: turnID, chars: rec.Chars}
		return nil
	})
	return r, used, waiting, err
}

// held sums the open reservations of a turn whose process still runs, and
// reports whether any belongs to a call in flight (that may release some).
// It checks each process once, whatever it holds.
func (l *Log) held(turnID string) (sum int, any bool) {
	for key, hd := range l.pending.turns[turnID] {
		if !l.live(turnID, key, hd) {
			continue
		}
		sum = addChars(sum, hd.sum)
		any = true
	}
	return sum, any
}

// live reports whether the process key may still settle what it holds in
// turn, and forgets what it holds when it cannot: a process that is gone,
// or, for this process's pid, the reservations this process does not hold
// (an earlier process with the same pid).
func (l *Log) live(turn string, key procKey, hd *holder) bool {
	switch {
	case key.host != l.host:
		return true // another machine: its pid means nothing here
	case key.pid == l.pid:
		for id := range hd.ids {
			if _, ok := heldHere.Load(id); !ok {
				l.pending.remove(id)
			}
		}
		return len(hd.ids) > 0 && l.pending.turns[turn][key] == hd
	case processAlive(key.pid):
		return true
	}
	l.pending.drop(turn, key)
	return false
}

// holdsLive reports whether any reservation of the log is open for a
// process that may still settle it.
func (l *Log) holdsLive() bool {
	for turn, procs := range l.pending.turns {
		for key, hd := range procs {
			if l.live(turn, key, hd) {
				return true
			}
		}
	}
	return false
}

// Settle appends the call's usage line, which settles the reservation, and
// returns the turn's settled characters after it. chars is what the call
// returned; more than was reserved is an error and nothing is logged (the
// reservation is released), since nothing may be handed out past it.
func (r *Reservation) Settle(tool string, uris []string, chars int) (int, error) {
	return r.SettleSame(tool, uris, nil, chars)
}

// SettleSame is Settle for a call that knows some of its locators to name
// one work (see Line.Same).
func (r *Reservation) SettleSame(tool string, uris []string, same [][]string, chars int) (int, error) {
	return r.SettleLine(Line{Tool: tool, URIs: uris, Same: same, Chars: chars})
}

// SettleLine is Settle for a call that fills more of its line (Same,
// Granted); the line's time, turn and reservation are the Reservation's.
func (r *Reservation) SettleLine(l Line) (int, error) {
	chars := l.Chars
	if r.done {
		return 0, errors.New("the reservation is already settled")
	}
	if chars < 0 || chars > r.chars {
		r.Release()
		return 0, fmt.Errorf("a result of %d characters exceeds its reservation of %d", chars, r.chars)
	}
	data, err := marshalUsage(Line{TurnID: r.turn, Tool: l.Tool, URIs: l.URIs, Same: l.Same, Granted: l.Granted, Chars: chars, Settles: r.id})
	if err != nil {
		r.Release()
		return 0, err
	}
	return r.finish(data, chars)
}

// Release gives the reservation back unused: for a call that fails. It is a
// no-op after Settle or Release.
func (r *Reservation) Release() error {
	if r == nil || r.done {
		return nil
	}
	data, err := json.Marshal(struct {
		At      time.Time `json:"at"`
		Release string    `json:"release"`
	}{time.Now().UTC(), r.id})
	if err != nil {
		return err
	}
	_, err = r.finish(append(data, '\n'), 0)
	return err
}

// finish appends the line that closes the reservation and returns the
// turn's settled total. Whatever happens, this process stops counting the
// reservation as its own, so a failed append cannot hold the budget.
func (r *Reservation) finish(line []byte, chars int) (int, error) {
	l := r.log
	l.mu.Lock()
	defer l.mu.Unlock()
	r.done = true
	defer heldHere.Delete(r.id)
	used := 0
	err := withUsageLock(l.path, func(f *safefs.File, st os.FileInfo) error {
		if err := l.sync(f, st); err != nil {
			return err
		}
		if err := l.append(f, st, line); err != nil {
			return err
		}
		l.pending.remove(r.id)
		l.settled[r.turn] = addChars(l.settled[r.turn], chars)
		used = l.settled[r.turn]
		return nil
	})
	if err != nil {
		l.pending.remove(r.id)
		return 0, fmt.Errorf("recording the call: %w", err)
	}
	return used, nil
}

// sync reads the lines appended since the last look. Called under both
// locks. A log that was replaced or shortened is read again from the start.
// One look reads at most maxUsageRead bytes: a log that grew by more since
// (a flood, or a log of more than that read by a new process) makes the
// call fail closed with an error wrapping safefs.ErrTooLarge, since the
// budget cannot be checked without reading it; nothing is handed out
// unchecked.
func (l *Log) sync(f *safefs.File, st os.FileInfo) error {
	if l.file != nil && (!os.SameFile(l.file, st) || st.Size() < l.off) {
		l.off = 0
		clear(l.settled)
		l.pending.clear()
	}
	l.file = st
	if st.Size() == l.off {
		return nil
	}
	if st.Size()-l.off > maxUsageRead {
		return fmt.Errorf("reading the usage log: %w: %d MiB not yet read, more than the %d MiB one look takes in, so the turn's budget cannot be checked; start a new session",
			safefs.ErrTooLarge, (st.Size()-l.off)>>20, maxUsageRead>>20)
	}
	n, err := scanUsage(io.NewSectionReader(f, l.off, st.Size()-l.off), func(line []byte, ok bool) {
		if ok {
			l.apply(line)
		}
	})
	l.off += n
	if err != nil {
		return fmt.Errorf("reading the usage log: %w", err)
	}
	return nil
}

// apply adds one complete line to the sums.
func (l *Log) apply(line []byte) {
	rec, kind := parseUsage(line)
	switch kind {
	case recCall:
		if rec.Settles != "" {
			l.pending.remove(rec.Settles)
		}
		l.settled[rec.TurnID] = addChars(l.settled[rec.TurnID], rec.Chars)
	case recReserve:
		l.pending.add(*rec.Reserve)
	case recRelease:
		l.pending.remove(rec.Release)
	}
}

// append writes one record at the end of the log, read up to its end by
// sync, and moves past it. A torn last line (a writer that died mid-write)
// is ended first, so the record starts a line of its own.
func (l *Log) append(f *safefs.File, st os.FileInfo, data []byte) error {
	n, err := appendRecord(f, data, l.off < st.Size())
	if err != nil {
		return err
	}
	l.off = st.Size() + n
	return nil
}

// appendRecord appends data with one write, after a newline when torn.
func appendRecord(f *safefs.File, data []byte, torn bool) (int64, error) {
	if torn {
		data = append([]byte{'\n'}, data...)
	}
	n, err := f.Write(data)
	if err != nil {
		return int64(n), fmt.Errorf("appending to the usage log: %w", errors.Unwrap(err))
	}
	return int64(n), nil
}

// tornTail reports whether the log of size bytes ends inside a line.
func tornTail(f *safefs.File, size int64) bool {
	if size == 0 {
		return false
	}
	var b [1]byte
	_, err := f.ReadAt(b[:], size-1)
	return err == nil && b[0] != '\n'
}

// lockWait bounds the wait for the usage log's lock, which is held only
// for a read of the new lines and one append.
const lockWait = 10 * time.Second

// withUsageLock runs fn with the usage log at path open for reading and
// appending (created 0600) and locked against every other process and
// goroutine that appends to it.
func withUsageLock(path string, fn func(f *safefs.File, st os.FileInfo) error) error {
	f, err := openUsage(path, os.O_RDWR|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return err
	}
	defer f.Close()
	deadline := time.Now().Add(lockWait)
	pause := 50 * time.Microsecond
	for {
		ok, err := tryLock(f)
		if err != nil {
			return fmt.Errorf("locking the usage log: %w", err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("the usage log stayed locked by another process")
		}
		time.Sleep(pause)
		pause = min(2*pause, 5*time.Millisecond)
	}
	defer unlock(f)
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading the usage log: %w", errors.Unwrap(err))
	}
	if !st.Mode().IsRegular() {
		return errors.New("the usage log is not a regular file")
	}
	if st.Size() < 0 || st.Size() > math.MaxInt64/2 {
		return errors.New("the usage log is too large")
	}
	return fn(f, st)
}
