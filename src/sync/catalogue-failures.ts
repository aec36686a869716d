// The catalogue's errors as the run reports them: each an 'invalid' outcome of its offer (or of its file, for a
// whole-file error), never 'failed', which is a write the marketplace refused (docs/architecture.md, Data flow).
import { fileLineColumn } from '../catalogue/catalogue-problem.ts';
import type { CatalogueViewProblem } from './catalogue-view.ts';
import type { OfferOutcome } from './run-report.ts';
import { isTargeted, type Target, targetTest } from './target.ts';

export function catalogueFailures(problems: readonly CatalogueViewProblem[], target?: Target): OfferOutcome[] {
  // A targeted run reports the catalogue errors inside its target only (a whole-file error by its file).
  const inTarget = isTargeted(target) ? targetTest(target) : null;
  return problems
    .filter((p) => p.severity === 'error')
    .filter(
      (p) =>
        !inTarget ||
        (p.kind !== undefined &&
          inTarget(p.kind, p.externalId ?? '', p.file) &&
          (p.externalId !== undefined || target?.match === undefined)),
    )
    .map((p) => ({
      kind: p.kind ?? 'file',
      externalId: p.externalId ?? '(file)',
      outcome: 'invalid' as const,
      file: `${fileLineColumn(p.file, p)}${p.pointer ? `#${p.pointer}` : ''}`,
      message: `${p.field ? `${p.field}: ` : ''}${p.message}`,
    }));
}
