// The catalogue's errors as the run reports them: each an 'invalid' outcome of its offer (or of its file, for a
// whole-file error), never 'failed', which is a write the marketplace refused (docs/architecture.md, Data flow).
import { fileLineColumn } from '../../catalogue/catalogue-problem.ts';
import type { CatalogueViewProblem } from '../plan/catalogue-view.ts';
import type { OfferOutcome } from './run-report.ts';
import { isTargeted, type Target, targetTest } from '../plan/target.ts';

/** Catalogue warnings a run's report names one by one; `validate` lists them all. */
export const CATALOGUE_WARNINGS_SHOWN = 10;

/**
 * The catalogue's warnings as lines of the run's report (plan, reconcile, the daemon's log): only `validate` showed
 * them, so a warning such as a price read as cents never reached a seller who runs the daemon.
 */
export function catalogueWarnings(problems: readonly CatalogueViewProblem[], target?: Target): string[] {
  const inTarget = isTargeted(target) ? targetTest(target) : null;
  const warnings = problems.filter(
    (p) =>
      p.severity === 'warning' && (!inTarget || (p.kind !== undefined && inTarget(p.kind, p.externalId ?? '', p.file))),
  );
  const lines = warnings
    .slice(0, CATALOGUE_WARNINGS_SHOWN)
    .map(
      (p) =>
        `catalogue warning ${fileLineColumn(p.file, p)}${p.pointer ? `#${p.pointer}` : ''}: ` +
        `${p.externalId ? `${p.externalId}: ` : ''}${p.field ? `${p.field}: ` : ''}${p.message}`,
    );
  const more = warnings.length - lines.length;
  if (more > 0) lines.push(`... and ${more} more catalogue warnings: offersync validate lists them all`);
  return lines;
}

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
