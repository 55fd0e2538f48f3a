// Code that runs inside the page (page.evaluate / waitForFunction), kept as JavaScript text: the tests are
// type-checked without the DOM library, which the service's code must never see.

/** Counts every keydown (auto-repeat excluded) in window.__keys. */
export const INSTALL_KEY_COUNTER = `(() => {
  window.__keys = [];
  window.addEventListener('keydown', (e) => { if (!e.repeat) window.__keys.push(e.key); }, true);
})()`;

export const KEYS_SEEN = `window.__keys`;

/** True once every image of the receipt preview has loaded. */
export const RECEIPT_IMAGES_LOADED = `[...document.querySelectorAll('[data-testid=receipt-preview] img')]
  .every((img) => img.complete && img.naturalWidth > 0)`;

/**
 * The receipt preview's images as PNG base64, drawn on a canvas at their natural size: the pixels the
 * browser decoded, whole even when the preview is taller than its scroll box.
 */
export const RECEIPT_IMAGES_PNG = `[...document.querySelectorAll('[data-testid=receipt-preview] img')].map((img) => {
  const canvas = document.createElement('canvas');
  canvas.width = img.naturalWidth;
  canvas.height = img.naturalHeight;
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.drawImage(img, 0, 0);
  return canvas.toDataURL('image/png').replace(/^data:image\\/png;base64,/, '');
})`;
