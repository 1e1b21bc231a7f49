import { Fragment } from "preact";

/** One bar of a {@link BarChart}: its label, its value, and the figure it shows (path and text). */
export interface Bar {
  label: string;
  value: number;
  /** The figure's path in the report document (`data-figure`). */
  figure: string;
  /** The value as the page writes it ("5,000.0 kg"). */
  text: string;
}

/** What a {@link BarChart} draws: its id (for its title's and description's ids), title, bars and colours. */
export interface BarChartProps {
  id: string;
  title: string;
  bars: Bar[];
  /** The stylesheet's colour family of the bars (`kind`, `scope`, …): bar n is `<palette>-<n mod 6>`. */
  palette: string;
}

const WIDTH = 720;
const LABEL_WIDTH = 200;
const VALUE_WIDTH = 150;
const BAR_AREA = WIDTH - LABEL_WIDTH - VALUE_WIDTH - 16;
const ROW_HEIGHT = 28;
const PADDING = 6;

/**
 * A horizontal bar chart as inline SVG: one labelled bar per row, its length in proportion to the
 * largest value, the figure written after it. `role="img"` with a title and a description of every
 * figure, for readers that cannot see it (the table next to it has the same figures).
 */
export function BarChart({ id, title, bars, palette }: BarChartProps) {
  const height = PADDING * 2 + bars.length * ROW_HEIGHT;
  const max = Math.max(0, ...bars.map((bar) => bar.value));
  const description = bars.map((bar) => `${bar.label}: ${bar.text}`).join("; ");
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${WIDTH} ${height}`}
      width="100%"
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
    >
      <title id={`${id}-title`}>{title}</title>
      <desc id={`${id}-desc`}>{description}</desc>
      {bars.map((bar, index) => {
        const y = PADDING + index * ROW_HEIGHT;
        // A bar of a positive value is at least 1 unit long, so that it shows next to much larger ones.
        const length = max > 0 && bar.value > 0 ? Math.max(1, (bar.value / max) * BAR_AREA) : 0;
        const rounded = Math.round(length * 10) / 10;
        return (
          <Fragment key={bar.figure}>
            <text x={LABEL_WIDTH - 8} y={y + 18} text-anchor="end" class="chart-label">
              {bar.label}
            </text>
            <rect
              x={LABEL_WIDTH}
              y={y + 5}
              width={rounded}
              height={ROW_HEIGHT - 10}
              rx="2"
              class={`bar ${palette}-${index % 6}`}
            />
            <text
              x={LABEL_WIDTH + rounded + 6}
              y={y + 18}
              class="chart-value"
              data-figure={bar.figure}
              data-value={String(bar.value)}
            >
              {bar.text}
            </text>
          </Fragment>
        );
      })}
    </svg>
  );
}
