import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const COLORS = ['#1f4f8a', '#b3461b', '#1c6b35', '#6b2c91', '#8a6d00', '#0f6f75'];

/** One line: a name and a value per x. */
export interface Series {
  label: string;
  values: Array<number | null>;
}

/**
 * A time-series line chart (uPlot). `x` are unix seconds; a text table of the same numbers
 * is available to screen readers.
 */
export function Chart({
  title,
  x,
  series,
  unit,
}: {
  title: string;
  x: number[];
  series: Series[];
  unit?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const plot = new uPlot(
      {
        width: Math.max(300, el.clientWidth - 8),
        height: 180,
        legend: { show: true },
        scales: { x: { time: true } },
        axes: [{}, { size: 64, values: (_u, ticks) => ticks.map((t) => `${t}${unit ?? ''}`) }],
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: COLORS[i % COLORS.length],
            width: 2,
            points: { show: false },
          })),
        ],
      },
      [x, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(300, el.clientWidth - 8), height: 180 }),
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [x, series, unit]);
  const last = series
    .map((s) => `${s.label} ${s.values[s.values.length - 1] ?? 0}${unit ?? ''}`)
    .join(', ');
  return (
    <figure className="chart" aria-label={title}>
      <h3>{title}</h3>
      <div ref={box} role="img" aria-label={`${title}; latest: ${last || 'no data'}`} />
    </figure>
  );
}
