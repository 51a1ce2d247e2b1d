// Package durableotel reports a durable.Payer's work as OpenTelemetry metrics and spans.
//
// [Middleware] returns River middleware for durable.Config.Middleware: otelriver's, which
// reports River's own job metrics and a span per job attempt and insertion, and this
// package's, which counts the Payer's job attempts by outcome. [ObservePayer] reports the
// intents of the Payer's database by status, and the age of the oldest pending one, read
// with durable.Payer.Stats at each collection.
//
// The instruments of the meter "pixretry/durable/durableotel":
//
//	name                               kind                    unit       attributes
//	durable.job.attempts               Int64Counter            {attempt}  durable.job.outcome
//	durable.job.snoozes                Int64Counter            {snooze}   none
//	durable.intents                    Int64ObservableGauge    {intent}   durable.intent.status
//	durable.intent.oldest_pending.age  Float64ObservableGauge  s          none
//
// durable.job.outcome is settled (the attempt ended with its intent settled), refused (River
// cancelled the job: the PSP refused the payment), snoozed (the outcome is unknown and the
// job waits) or failed (any other error, or a panic: River retries the job). Each snooze is
// also counted by durable.job.snoozes. durable.intent.status is pending, overdue, settled
// or refused; every status is reported, 0 when no intent has it. The oldest pending age is 0
// when no intent is pending. The gauges are the database's, not the process's: every process
// that observes one database reports the same values, so they are not summed across
// processes.
//
// otelriver's instruments, of the meter "github.com/riverqueue/rivercontrib/otelriver", are
// river.work_count, river.work_duration and river.work_duration_histogram per job attempt,
// with the attributes attempt, kind, priority, queue, status, tag, and cancel or snooze; and
// river.insert_count, river.insert_many_count, river.insert_many_duration and
// river.insert_many_duration_histogram per insertion, with status and
// unique_skipped_as_duplicate. Durations are in seconds. River's fetch metrics
// (river.job_get_available_*) are not reported: otelriver takes them as a hook, and
// durable.Config.Middleware installs middleware only.
//
// No attribute names a payment, its key, its payer or its amount.
//
// The package uses the OpenTelemetry API alone. A program sets up the SDK and passes its
// providers in [Config].
package durableotel
