package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"pixretry/retry"
)

// pspError is how a PSP client might report an HTTP answer it did not want.
type pspError struct{ status int }

func (e *pspError) Error() string   { return fmt.Sprintf("psp: status %d", e.status) }
func (e *pspError) StatusCode() int { return e.status }

// fakePSP answers from a script, as a flaky PSP would: nil means the payment
// settles. It panics if called more often than scripted.
type fakePSP struct{ answers []error }

func (p *fakePSP) send(ctx context.Context) (string, error) {
	err := p.answers[0]
	p.answers = p.answers[1:]
	if err != nil {
		return "", err
	}
	return "settled", nil
}

func ExampleDo() {
	// The whole payment, retries included, must be done within 5 seconds.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Zero delays keep the example quick; a service would use, say,
	// DelayBase 100ms and DelayMax 2s.
	p := retry.Policy{AttemptsMax: 4}

	// The PSP is unavailable twice, then settles the payment.
	flaky := &fakePSP{answers: []error{&pspError{503}, &pspError{503}, nil}}
	status, err := retry.Do(ctx, p, flaky.send)
	fmt.Println(status, err)

	// A business refusal is permanent: returned at once, as it is.
	refusing := &fakePSP{answers: []error{&pspError{422}}}
	_, err = retry.Do(ctx, p, refusing.send)
	fmt.Println(err)
	// Output:
	// settled <nil>
	// psp: status 422
}

func ExampleWithObserver() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	down := &fakePSP{answers: []error{io.ErrUnexpectedEOF, &pspError{503}, &pspError{503}}}
	logAttempt := func(a retry.Attempt) {
		fmt.Printf("attempt %d: %v (transient: %t), wait %v, stop: %v\n", a.Number, a.Err, a.Transient, a.Wait, a.Stop)
	}
	_, err := retry.Do(ctx, retry.Policy{AttemptsMax: 3}, down.send, retry.WithObserver(logAttempt))
	fmt.Println(err)
	// Output:
	// attempt 1: unexpected EOF (transient: true), wait 0s, stop: none
	// attempt 2: psp: status 503 (transient: true), wait 0s, stop: none
	// attempt 3: psp: status 503 (transient: true), wait 0s, stop: budget
	// retry: attempt 3 of 3, budget spent: psp: status 503
}

func ExampleWithRand() {
	// With a fixed draw every wait is known in advance: here 30s, half the
	// ceiling. That wait would end after the caller's deadline, so Do stops
	// at once instead of starting it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	p := retry.Policy{AttemptsMax: 3, DelayBase: time.Minute, DelayMax: time.Minute}
	down := &fakePSP{answers: []error{&pspError{503}}}
	_, err := retry.Do(ctx, p, down.send,
		retry.WithRand(func() float64 { return 0.5 }),
		retry.WithObserver(func(a retry.Attempt) { fmt.Println("wait", a.Wait, "stop:", a.Stop) }))
	fmt.Println(errors.Is(err, context.DeadlineExceeded), err)
	// Output:
	// wait 30s stop: context
	// true retry: after attempt 1: context deadline exceeded; last error: psp: status 503
}

func ExampleWithClassifier() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// An antifraud service answers 423 Locked while it reviews a payment.
	locked := func(err error) bool {
		var e *pspError
		return (errors.As(err, &e) && e.status == 423) || retry.Transient(err)
	}
	reviewing := &fakePSP{answers: []error{&pspError{423}, nil}}
	status, err := retry.Do(ctx, retry.Policy{AttemptsMax: 2}, reviewing.send, retry.WithClassifier(locked))
	fmt.Println(status, err)
	// Output:
	// settled <nil>
}

func ExampleTransient() {
	for _, err := range []error{
		&pspError{503},
		&pspError{409},
		&pspError{501},
		&pspError{422},
		io.ErrUnexpectedEOF,
		context.DeadlineExceeded,
		context.Canceled,
		errors.New("unknown"),
	} {
		fmt.Printf("%v: %t\n", err, retry.Transient(err))
	}
	// Output:
	// psp: status 503: true
	// psp: status 409: true
	// psp: status 501: false
	// psp: status 422: false
	// unexpected EOF: true
	// context deadline exceeded: true
	// context canceled: false
	// unknown: false
}

func ExampleCeiling() {
	p := retry.Policy{AttemptsMax: 8, DelayBase: 100 * time.Millisecond, DelayMax: time.Second}
	for n := 1; n <= 6; n++ {
		fmt.Print(retry.Ceiling(p, n), " ")
	}
	fmt.Println()
	// Output:
	// 100ms 200ms 400ms 800ms 1s 1s
}

func ExampleFullJitter() {
	for _, u := range []float64{0, 0.25, 0.5, math.Nextafter(1, 0)} {
		fmt.Print(retry.FullJitter(time.Second, u), " ")
	}
	fmt.Println()
	// Output:
	// 0s 250ms 500ms 1s
}

func ExamplePolicy_Validate() {
	err := retry.Policy{AttemptsMax: 3, DelayBase: time.Second, DelayMax: 500 * time.Millisecond}.Validate()
	fmt.Println(errors.Is(err, retry.ErrInvalidPolicy), err)
	// Output:
	// true retry: invalid policy: DelayMax 500ms is below DelayBase 1s
}

func ExampleStop_String() {
	fmt.Println(retry.StopSuccess, retry.StopRetryAfter, retry.StopContext)
	// Output:
	// success retry-after context
}
