// The text of an error for a one-line message, whatever was thrown.

/** @param {unknown} err */
export function errorMessage(err) {
  if (err instanceof Error) {
    if (err.message) return err.message
    const code = /** @type {{ code?: unknown }} */ (err).code
    if (typeof code === 'string') return code
  }
  // AggregateError from a refused dual-stack connect has an empty message
  const errors = /** @type {{ errors?: unknown[] }} */ (err)?.errors
  if (Array.isArray(errors) && errors.length > 0) return errorMessage(errors[0])
  return String(err)
}
