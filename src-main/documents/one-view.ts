// A kind's view of one document drawn by the batch builder its lists use (events and pending cancellations read
// once for the page), with the answer's `message` when the route has one.

/** The only view `views` gives for one document, carrying `message` when given. */
export async function oneView<V extends { message?: string }>(
  views: Promise<V[]>,
  message?: string,
): Promise<V> {
  const [view] = await views;
  if (view === undefined) throw new Error('unreachable: one view per document');
  return message === undefined ? view : { ...view, message };
}
