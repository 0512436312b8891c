/// A plain text table: a header row and aligned columns, for humans.
public struct Table: Sendable, CustomStringConvertible {
    public var headers: [String]
    public var rows: [[String]]

    public init(headers: [String], rows: [[String]] = []) {
        self.headers = headers
        self.rows = rows
    }

    public mutating func append(_ row: [String]) { rows.append(row) }

    public var description: String {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func render(_ cells: [String]) -> String {
            var line = ""
            for (index, cell) in cells.enumerated() where index < widths.count {
                let isLast = index == widths.count - 1
                line += isLast ? cell : cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }
            return line
        }
        var lines = [render(headers)]
        for row in rows { lines.append(render(row)) }
        return lines.joined(separator: "\n")
    }
}
