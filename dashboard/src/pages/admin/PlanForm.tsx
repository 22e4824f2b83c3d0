import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ActionForm } from '../../components/ActionForm.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Field } from '../../components/Field.tsx';
import { SelectField } from '../../components/SelectField.tsx';
import { SubmitButton } from '../../components/SubmitButton.tsx';
import { useAction } from '../../lib/hooks.ts';
import { isTier, planBody, planInputs, TIER_OPTIONS, type Plan, type PlanBody, type PlanInputs } from './plan.ts';

interface Props<T extends Plan> {
  /** Prefix of the form's ids: one plan form per page. */
  id: string;
  /** The paragraph under the heading: whose plan this is. */
  children: ComponentChildren;
  plan: T;
  /** PATCH the user or the organization; its answer is the plan now. */
  save: (body: PlanBody) => Promise<T>;
  onSaved: (updated: T) => void;
}

/**
 * Tier and custom limits (a user's personal organization, or an organization): the tier, and on
 * enterprise the limits' boxes (empty: the tier's own numbers). Asks for the second factor when
 * the server wants it (step-up), then saves again.
 */
export function PlanForm<T extends Plan>({ id, children, plan, save, onSaved }: Props<T>) {
  const [inputs, setInputs] = useState<PlanInputs>(() => planInputs(plan));
  const [checks, setChecks] = useState<Record<string, string>>({});
  const { run, busy, error } = useAction(async () => {
    const { body, errors } = planBody(inputs);
    setChecks(errors);
    if (!body) return;
    const updated = await save(body);
    setInputs(planInputs(updated));
    onSaved(updated);
  });
  const set = (field: keyof PlanInputs) => (value: string) => setInputs({ ...inputs, [field]: value });
  // The server names the whole `limits` object in its messages (and `tier`): shown by the first box.
  const serverLimits = error?.fields.limits;
  return (
    <section class="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Tier and limits</h2>
      <p class="hint">{children}</p>
      <ErrorAlert error={error} onStepUp={() => void run()} />
      <ActionForm class="form" aria-labelledby={`${id}-title`} onSubmit={() => run()}>
        <SelectField label="Tier" name={`${id}-tier`} value={inputs.tier} options={TIER_OPTIONS} onValue={(tier) => isTier(tier) && setInputs({ ...inputs, tier })} error={error?.fields.tier} />
        {inputs.tier === 'enterprise' ? (
          <fieldset class="field limits-fields">
            <legend>Custom limits (enterprise)</legend>
            <p class="hint">Leave all three empty for the tier’s own limits. Per minute and per day go together; live streams are optional.</p>
            <div class="form-row">
              <Field label="Requests per minute" name={`${id}-per-minute`} type="number" inputMode="numeric" min={1} step={1} value={inputs.perMinute} onValue={set('perMinute')} error={checks.per_minute ?? serverLimits} />
              <Field label="Requests per day" name={`${id}-per-day`} type="number" inputMode="numeric" min={1} step={1} value={inputs.perDay} onValue={set('perDay')} error={checks.per_day} />
            </div>
            <div class="form-row">
              <Field label="Live streams at once" name={`${id}-streams`} type="number" inputMode="numeric" min={1} max={100000} step={1} value={inputs.streams} onValue={set('streams')} error={checks.streams} />
            </div>
          </fieldset>
        ) : (
          <p class="hint">Custom limits are for the enterprise tier; on any other tier the tier’s own limits apply (saving drops custom ones).</p>
        )}
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Saving…">
            Save tier and limits
          </SubmitButton>
        </div>
      </ActionForm>
    </section>
  );
}
