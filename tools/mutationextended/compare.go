package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"pixretry/tools/internal/mutant"
)

// compare checks the schema against the way every mutant was once tested: n of the package's
// mutants, spread evenly over its files, are each built alone and run against all of the
// package's tests, and every verdict that differs from the pass's is printed. Both ways count
// a mutant that times out as killed, and one that no test runs as surviving.
func (p *pass) compare(ctx context.Context, n int, opts options, out io.Writer) error {
	if n <= 0 || len(p.mutants) == 0 {
		return nil
	}
	sources := map[string][]byte{}
	r := &mutant.Runner{Dir: p.dir, Short: opts.short}
	if _, err := r.Measure(ctx); err != nil {
		return fmt.Errorf("mutationextended: %w", err)
	}
	step := max(len(p.mutants)/n, 1)
	agree, total := 0, 0
	for i := 0; i < len(p.mutants) && total < n; i += step {
		m := p.mutants[i]
		if sources[m.File] == nil {
			src, err := os.ReadFile(p.dir + "/" + m.File)
			if err != nil {
				return err
			}
			sources[m.File] = src
		}
		v, _, err := r.Test(ctx, m.File, m.Apply(sources[m.File]))
		if err != nil {
			return fmt.Errorf("mutationextended: %s: %w", m.ID, err)
		}
		total++
		built := map[mutant.Verdict]string{
			mutant.Killed: "killed", mutant.TimedOut: "killed", mutant.Survived: "survived",
			mutant.NotCompiled: "not compiled",
		}[v]
		schema := map[outcome]string{
			killed: "killed", timedOut: "killed", survived: "survived", notCovered: "survived",
			notCompiled: "not compiled",
		}[p.outcomes[i]]
		if built == schema {
			agree++
			continue
		}
		fmt.Fprintf(out, "DIFFERS %s: schema %s (%s), built alone %s (%s)\n", m.ID, schema, p.outcomes[i], built, v)
	}
	fmt.Fprintf(out, "%s: compared %d mutants with per-mutant builds: %d agree, %d differ\n", p.dir, total, agree, total-agree)
	return nil
}
