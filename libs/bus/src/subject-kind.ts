/** A bounded metric label for a subject: a short name the caller chooses (`price`, `stream.subscribe`). */
export type SubjectKind = string;
