package psp

import (
	"bufio"
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Paths of the control surface, mounted when Config.Control is set.
const (
	controlFaultsPath      = "/_psp/faults"
	controlSettlementsPath = "/_psp/settlements"
	controlBalancePath     = "/_psp/balance"
	controlResetPath       = "/_psp/reset"
)

// controlRoutes is the HTTP face of Inject, ClearFaults, Settlements, BalanceCents, Reset and
// Stats, each behind guard. POST /_psp/faults takes
// {"faults":[...]} as application/json (at most maxBodyBytes) and queues all or none: any bad
// fault is a 400 invalid_request whose violacoes name each one ("faults[1]"), and faults that
// would take the queue past MaxQueuedFaults are a 400 naming "faults".
func (s *Server) controlRoutes() map[string]map[string]http.HandlerFunc {
	return map[string]map[string]http.HandlerFunc{
		controlFaultsPath: {
			http.MethodPost:   s.postFaults,
			http.MethodDelete: noContent(s.ClearFaults),
		},
		controlSettlementsPath: {http.MethodGet: s.getSettlements},
		controlBalancePath:     {http.MethodGet: s.getBalance},
		controlResetPath:       {http.MethodPost: noContent(s.Reset)},
		controlStatsPath:       {http.MethodGet: s.getStats},
	}
}

// guard puts handle behind the checks every control request passes, in this order: a Host of
// Config.ControlHosts (403 host_not_allowed), Config.ControlToken (401 unauthorized), and, for
// a request that changes state (any method but GET), Content-Type application/json (415).
func (s *Server) guard(handle http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := s.checkControl(r); err != nil {
			errorAnswer(err).write(w, "")
			return
		}
		handle(w, r)
	}
}

// checkControl returns the failure guard answers r with, or nil.
func (s *Server) checkControl(r *http.Request) error {
	hosts := s.cfg.ControlHosts
	if len(hosts) > 0 && !slices.ContainsFunc(hosts, func(h string) bool { return strings.EqualFold(h, r.Host) }) {
		return fail(codeHostNotAllowed, "the control API does not answer for Host %q", r.Host)
	}
	token, isBearer := bearer(r.Header)
	if s.cfg.ControlToken != "" &&
		(!isBearer || subtle.ConstantTimeCompare([]byte(token), []byte(s.cfg.ControlToken)) == 0) {
		return unauthorized("psp-control", "the control token is required in Authorization")
	}
	if r.Method != http.MethodGet {
		return checkJSON(r.Header)
	}
	return nil
}

// noContent is a handler that calls do and answers 204.
func noContent(do func()) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		do()
		w.WriteHeader(http.StatusNoContent)
	}
}

// postFaults queues {"faults":[...]} and answers 204, or queues none and answers 400 naming
// each bad fault, or the queue if they do not all fit in it.
func (s *Server) postFaults(w http.ResponseWriter, r *http.Request) {
	faults, err := readFaults(w, r)
	if err != nil {
		errorAnswer(err).write(w, "")
		return
	}
	if err := s.queue(faults); err != nil {
		errorAnswer(invalid(codeInvalidRequest, violation{"faults", err.Error()})).write(w, "")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// readFaults reads a {"faults":[...]} body (application/json, at most maxBodyBytes).
func readFaults(w http.ResponseWriter, r *http.Request) ([]Fault, error) {
	body, err := readJSONBody(w, r)
	if err != nil {
		return nil, err
	}
	members, bad := decodeObject(body, "faults")
	if members == nil {
		return nil, invalid(codeInvalidRequest, bad...)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(members["faults"], &raws); err != nil || raws == nil {
		bad = append(bad, violation{"faults", "required: a JSON array of faults"})
	}
	faults := make([]Fault, len(raws))
	for i, raw := range raws {
		if err := faults[i].UnmarshalJSON(raw); err != nil {
			bad = append(bad, violation{fmt.Sprintf("faults[%d]", i), err.Error()})
		}
	}
	if len(bad) > 0 {
		return nil, invalid(codeInvalidRequest, bad...)
	}
	return faults, nil
}

type settlementsBody struct {
	Count       int              `json:"count"`
	Settlements []settlementJSON `json:"settlements"`
}

type settlementJSON struct {
	EndToEndID     string `json:"endToEndId"`
	IdempotencyKey string `json:"idempotencyKey"`
	Valor          string `json:"valor"`
	Chave          string `json:"chave"`
	Horario        string `json:"horario"`
}

// getSettlements writes the ledger one settlement at a time, so that a long ledger costs no
// copy of itself: the Settlements it points to never change once recorded.
func (s *Server) getSettlements(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	ledger := slices.Clone(s.book.ledger)
	s.mu.Unlock()
	w.Header().Set("Content-Type", jsonContentType)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `{"count":%d,"settlements":[`, len(ledger))
	for i, st := range ledger {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.Write(bytes.TrimSuffix(marshal(settlementJSON{
			EndToEndID:     st.EndToEndID,
			IdempotencyKey: st.IdempotencyKey,
			Valor:          FormatAmount(st.AmountCents),
			Chave:          st.PixKey,
			Horario:        st.SettledAt.Format(time.RFC3339Nano),
		}), []byte("\n")))
	}
	bw.WriteString("]}\n")
	bw.Flush() // a failed write means the client has gone: nothing left to tell it
}

type balanceBody struct {
	Balance string `json:"balance"`
}

func (s *Server) getBalance(w http.ResponseWriter, _ *http.Request) {
	body := balanceBody{FormatAmount(s.BalanceCents())}
	jsonAnswer(http.StatusOK, jsonContentType, body).write(w, "")
}
