// Responsiveness, measured against the machine itself: how long the event loop waited while some
// work ran, and the same for a control that works as a reader should, in the same run. On a loaded
// machine the control's waits grow too: a reader is held to what the machine gives a well-behaved
// task, not to absolute milliseconds.

/**
 * A 5 ms timer's waits while `work` runs: how often it fired (`ticks`), its longest wait up to
 * the work's end (`worst`), its waits over 100 ms (`long`), the work's time (`took`) and value.
 */
export async function watch(work) {
  const seen = { ticks: 0, worst: 0, long: 0 };
  let last = performance.now();
  const wait = (now) => {
    seen.worst = Math.max(seen.worst, now - last);
    if (now - last > 100) seen.long++;
    last = now;
  };
  const timer = setInterval(() => {
    wait(performance.now());
    seen.ticks++;
  }, 5);
  const t0 = performance.now();
  try {
    seen.value = await work();
  } finally {
    clearInterval(timer);
  }
  const end = performance.now();
  wait(end);
  seen.took = end - t0;
  return seen;
}

/** `watch` of JavaScript that works in 8 ms slices with a turn between them, for `ms`. */
export function control(ms) {
  return watch(async () => {
    const end = performance.now() + ms;
    let x = 0;
    while (performance.now() < end) {
      const slice = performance.now() + 8;
      while (performance.now() < slice) x += Math.sqrt(x + 1);
      await new Promise((r) => setTimeout(r, 0));
    }
    return x;
  });
}
