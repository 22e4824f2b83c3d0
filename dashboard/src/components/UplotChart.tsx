import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  /** A CSS custom property of styles.css (light and dark values), e.g. `--chart-ok`. */
  color: string;
}

interface Props {
  data: uPlot.AlignedData;
  series: readonly ChartSeries[];
  /** Label the time axis in UTC (days counted in UTC) rather than local time. */
  utc: boolean;
  /** What the chart shows, for screen readers (the canvas itself says nothing). */
  label: string;
}

const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/** Whole-number steps for the count axis (1, 2, 5, 10, 20, 50, …). */
const COUNT_STEPS = Array.from({ length: 10 }, (_, e) => [1, 2, 5].map((m) => m * 10 ** e)).flat();

/**
 * Lines over time, drawn by uPlot on a canvas as wide as its container (CSS sets the height).
 * The plot sits absolutely inside the box, so resizing it never resizes the box itself.
 */
export function UplotChart({ data, series, utc, label }: Props) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const size = () => ({ width: el.clientWidth, height: el.clientHeight });
    const axis = { stroke: cssVar('--muted'), grid: { stroke: cssVar('--border'), width: 1 }, ticks: { stroke: cssVar('--border'), width: 1 } };
    const plot = new uPlot(
      {
        ...size(),
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        ...(utc ? { tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC') } : {}),
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
        axes: [axis, { ...axis, incrs: COUNT_STEPS, values: (_u, ticks) => ticks.map((t) => t.toLocaleString()) }],
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: cssVar(s.color), width: 2 }))],
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => {
      const next = size();
      if (next.width !== plot.width || next.height !== plot.height) plot.setSize(next);
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [data, series, utc]);
  return <div ref={box} class="chart-plot" role="img" aria-label={label} />;
}
