// The cashier's "no" sound: a short low beep when something typed or scanned is refused, so a cashier looking
// at the customer (or at the scanner) notices without reading the screen.

let context: AudioContext | null = null;
let count = 0;

/** Beeps (where the browser lets the page make sound) and counts it: data-beeps on the cashier shows it. */
export function refuseBeep(): number {
  count += 1;
  try {
    context ??= new AudioContext();
    const osc = context.createOscillator();
    const gain = context.createGain();
    osc.type = 'square';
    osc.frequency.value = 220;
    gain.gain.value = 0.15;
    osc.connect(gain).connect(context.destination);
    const now = context.currentTime;
    osc.start(now);
    osc.stop(now + 0.25);
  } catch {
    // No audio device (or no Web Audio): the visible message still says it.
  }
  return count;
}

export function beepCount(): number {
  return count;
}
