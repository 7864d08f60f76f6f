//! Every metric of seed §6, insights (§7) and the cost estimate.
