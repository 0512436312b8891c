/// The pgbench script that runs the one-statement ownership claim, shared by the ownership
/// and service benchmarks so pgbench runs exactly the SQL the gateway sends.
public enum PgbenchClaimScript {
    /// The claim's parameters `$1` … `$6`, and the connect's account `$7`, as pgbench
    /// variables (`account` is a string: pass it with pgbench's `-D account=…`).
    static let variables = ["reader", "session", "lane", "fail", "discovery", "latest", "account"]

    /// A random reader out of `readers` (ids 1 … `readers`), the client's own session and lane,
    /// failIfInUse false, discovery 1 of 1.
    public static func make(claimSQL: String, readers: Int) -> String {
        var sql = claimSQL
        // Replace $6 … $1 (highest first, so $1 does not eat the start of $10-like names).
        for (index, name) in variables.enumerated().reversed() {
            sql = sql.replacingOccurrences(of: "$\(index + 1)", with: ":\(name)")
        }
        return """
            \\set reader random(1, \(readers))
            \\set session :client_id + 1
            \\set lane :client_id + 1
            \\set fail 0
            \\set discovery 1
            \\set latest 1
            \(sql);

            """
    }
}
