/**
 * Whether a request failed because the server found no space to write:
 * SQLSTATE 53100 (disk_full, what ENOSPC becomes), or an error whose
 * message or detail carries the errno's text. A quota (EDQUOT, as a ZFS
 * dataset's) has no SQLSTATE of its own: PostgreSQL reports it as XX000
 * ("could not extend file "…": Disk quota exceeded"), and a transaction-status
 * page it cannot write as "could not access status of transaction N" with
 * the errno in the detail.
 * @param {unknown} err
 */
export function isDiskFullError(err) {
  const error = /** @type {{ code?: unknown, message?: unknown, detail?: unknown }} */ (err)
  if (error?.code === '53100') return true
  return DISK_FULL_TEXT.test(String(error?.message ?? '')) || DISK_FULL_TEXT.test(String(error?.detail ?? ''))
}
const DISK_FULL_TEXT = /No space left on device|Disk quota exceeded/
