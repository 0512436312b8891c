import CGatewayPostgres
import Glibc
import Synchronization

/// Owns one libpq `PGresult` and frees it when the last reference goes.
///
/// `@unchecked Sendable`: a `PGresult` is never modified after libpq hands it
/// over, and libpq's accessors only read it, so any thread may read it.
final class PostgresResultHandle: @unchecked Sendable {
    let result: OpaquePointer
    /// The column after the one a name was last found at: decoders read columns mostly in
    /// the SELECT list's order, so the next name is looked for there first. Only a hint.
    let nextColumn = Atomic<Int>(0)
    /// Bit `c` set: a scan found column `c` as the first of its name, so a name the hint finds
    /// at `c` is found where the scan would find it (a name twice in the list stays found at
    /// its first position).
    let firstOfName = Atomic<UInt64>(0)

    init(_ result: OpaquePointer) { self.result = result }

    deinit { PQclear(result) }
}

/// The rows a statement returned (possibly none), read in text format.
///
/// Nothing is copied out of libpq's result until asked for, so building one
/// costs nothing on the store thread.
public struct PostgresRows: Sendable, RandomAccessCollection {
    let handle: PostgresResultHandle?

    init(handle: PostgresResultHandle?) {
        self.handle = handle
    }

    /// The command tag's row count (`INSERT 0 3` → 3), for statements without rows too.
    public var affectedRows: Int {
        guard let result = handle?.result else { return 0 }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Column names, in order.
    public var columns: [String] {
        guard let result = handle?.result else { return [] }
        return (0..<Int(PQnfields(result))).map { String(cString: PQfname(result, Int32($0))) }
    }

    var columnCount: Int { handle.map { Int(PQnfields($0.result)) } ?? 0 }

    public var startIndex: Int { 0 }
    public var endIndex: Int { handle.map { Int(PQntuples($0.result)) } ?? 0 }

    public subscript(position: Int) -> PostgresRow {
        PostgresRow(rows: self, index: position)
    }

    /// The first column called `name` (exact match), or nil. The column after the last one
    /// found is tried first (``PostgresResultHandle/nextColumn``): the rows of a result decoded
    /// in the SELECT list's order cost one comparison a column after the first row, not a scan.
    func columnPosition(_ name: String) -> Int? {
        guard let handle else { return nil }
        let result = handle.result
        let count = Int(PQnfields(result))
        let position: Int? = name.withCString { wanted in
            let hint = handle.nextColumn.load(ordering: .relaxed)
            if hint < count, hint < 64, handle.firstOfName.load(ordering: .relaxed) & (1 << UInt64(hint)) != 0,
               strcmp(PQfname(result, Int32(hint)), wanted) == 0 {
                return hint
            }
            for column in 0..<count where strcmp(PQfname(result, Int32(column)), wanted) == 0 {
                if column < 64 { handle.firstOfName.bitwiseOr(1 << UInt64(column), ordering: .relaxed) }
                return column
            }
            return nil
        }
        if let position { handle.nextColumn.store(position + 1 == count ? 0 : position + 1, ordering: .relaxed) }
        return position
    }

    func columnName(_ column: Int) -> String {
        guard let result = handle?.result else { return "" }
        return String(cString: PQfname(result, Int32(column)))
    }
}

/// One row of ``PostgresRows``.
public struct PostgresRow: Sendable {
    let rows: PostgresRows
    let index: Int

    /// The raw text of a column, nil for SQL `NULL`.
    public func text(at column: Int) -> String? {
        guard let result = rows.handle?.result, column >= 0, column < rows.columnCount else { return nil }
        if PQgetisnull(result, Int32(index), Int32(column)) != 0 { return nil }
        return String(cString: PQgetvalue(result, Int32(index), Int32(column)))
    }

    /// Reads column `name` as `T`; use an optional `T` for nullable columns.
    ///
    /// Inlinable, so that each caller's module specialises it for its `T`: called across the
    /// module boundary unspecialised, every column cost a generic metadata lookup and witness
    /// calls (about half a microsecond a column on the connect path). The lookups and errors
    /// stay here, not generic.
    @inlinable
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, _ name: String) throws(StoreError) -> T {
        try Self.value(T.self, try field(named: name))
    }

    /// Reads the column at `column` (0-based) as `T`.
    @inlinable
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, at column: Int) throws(StoreError) -> T {
        try Self.value(T.self, try field(at: column))
    }

    /// A column's text (nil for SQL `NULL`) converted to `T`.
    @inlinable
    static func value<T: PostgresDecodable>(_ type: T.Type, _ field: (row: PostgresRow, column: Int, text: String?)) throws(StoreError) -> T {
        guard let text = field.text else {
            if let null = T.postgresNull { return null }
            throw field.row.nullError(field.column)
        }
        guard let value = T(postgresText: text) else {
            throw field.row.malformedError(field.column, text, expected: "\(T.self)")
        }
        return value
    }

    /// Column `name`'s position and text; throws when the result has no such column.
    @usableFromInline
    func field(named name: String) throws(StoreError) -> (row: PostgresRow, column: Int, text: String?) {
        guard let column = rows.columnPosition(name) else {
            throw StoreError(.decodingFailed, "the result has no column \"\(name)\" (columns: \(rows.columns.joined(separator: ", "))); check the SELECT list")
        }
        return try field(at: column)
    }

    /// Column `column`'s text; throws when the result has fewer columns.
    @usableFromInline
    func field(at column: Int) throws(StoreError) -> (row: PostgresRow, column: Int, text: String?) {
        guard column >= 0, column < rows.columnCount else {
            throw StoreError(.decodingFailed, "the result has \(rows.columnCount) columns, not a column \(column)")
        }
        return (self, column, text(at: column))
    }

    @usableFromInline
    func nullError(_ column: Int) -> StoreError {
        StoreError(.decodingFailed, "column \"\(rows.columnName(column))\" is NULL; decode it as an Optional")
    }

    @usableFromInline
    func malformedError(_ column: Int, _ text: String, expected: String) -> StoreError {
        StoreError(.decodingFailed, "column \"\(rows.columnName(column))\" value \(text.debugDescription) is not a \(expected)")
    }
}
