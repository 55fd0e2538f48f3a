// This terminal's scale label layout, kept in the browser beside its other preferences (scan.ts reads it
// without the DOM, so the rules stay testable outside a browser).
import { DEFAULT_SCALE_LAYOUT, validScaleLayout, type ScaleLayout } from './scan.ts';

const SCALE_STORAGE = 'balcao.scaleLayout';

export function loadScaleLayout(): ScaleLayout {
  try {
    const raw = window.localStorage.getItem(SCALE_STORAGE);
    if (raw === null) return DEFAULT_SCALE_LAYOUT;
    const parsed = { ...DEFAULT_SCALE_LAYOUT, ...(JSON.parse(raw) as Partial<ScaleLayout>) };
    return validScaleLayout(parsed) ? parsed : DEFAULT_SCALE_LAYOUT;
  } catch {
    return DEFAULT_SCALE_LAYOUT;
  }
}

export function saveScaleLayout(layout: ScaleLayout): void {
  window.localStorage.setItem(SCALE_STORAGE, JSON.stringify(layout));
}
