//! The static platform table of seed §5.2 ("平台规则是静态列表，不是模型判断"): which well-known
//! site a host belongs to, and the channel (渠道) it counts under.
//!
//! A rule is a host suffix on label boundaries: `baidu.com`-style rules cover their
//! subdomains, and the most specific rule wins, so `baike.baidu.com` is 百度百科 while
//! `baijiahao.baidu.com` is 百家号, and `gsxt.gov.cn` (business registry) beats the generic
//! `gov.cn` rule. Rules are matched against the host only; path-based sections of a site
//! (`sj.qq.com/appstore`) are covered by their host. Sites not in the table fall back in
//! `classify_source` to "platform = the domain, channel `other`": that changes the channel
//! breakdown, never the source counts.
//!
//! `SearchSource.platform` stores [`Platform::name_zh`] (the product's primary language);
//! the English name is available through [`lookup_platform`] and [`Platform::name`].

use crate::model::Lang;
use crate::text::packed::{fields, pack, packed_len};

/// A well-known site: display names and its channel key (see [`CHANNELS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Platform {
    /// Chinese name, stored as `SearchSource.platform`.
    pub name_zh: &'static str,
    /// English name.
    pub name_en: &'static str,
    /// Channel key, one of [`CHANNELS`].
    pub channel: &'static str,
}

impl Platform {
    /// The display name in `lang`.
    pub fn name(&self, lang: Lang) -> &'static str {
        lang.pick(self.name_zh, self.name_en)
    }
}

/// Channel key of WeChat Official Accounts.
pub const WECHAT: &str = "wechat";
/// Channel key of encyclopedias.
pub const ENCYCLOPEDIA: &str = "encyclopedia";
/// Channel key of Q&A sites.
pub const QA: &str = "qa";
/// Channel key of social networks.
pub const SOCIAL: &str = "social";
/// Channel key of video platforms.
pub const VIDEO: &str = "video";
/// Channel key of news media.
pub const NEWS: &str = "news";
/// Channel key of creator/self-media platforms.
pub const MEDIA_PLATFORM: &str = "media_platform";
/// Channel key of developer communities.
pub const TECH_COMMUNITY: &str = "tech_community";
/// Channel key of blogs and newsletters.
pub const BLOG: &str = "blog";
/// Channel key of code hosting.
pub const CODE: &str = "code";
/// Channel key of review and comparison sites.
pub const REVIEW: &str = "review";
/// Channel key of company-registry and business-information sites.
pub const BUSINESS_INFO: &str = "business_info";
/// Channel key of app stores.
pub const APP_STORE: &str = "app_store";
/// Channel key of government and education sites.
pub const GOV_EDU: &str = "gov_edu";
/// Channel key of forums.
pub const FORUM: &str = "forum";
/// Channel key of document-sharing libraries.
pub const DOCS: &str = "docs";
/// Channel key of online shops.
pub const ECOMMERCE: &str = "ecommerce";
/// Channel key of the brand's or a competitor's own site.
pub const OFFICIAL: &str = "official";
/// Channel key of everything not in the table.
pub const OTHER: &str = "other";

/// Every channel key with its Chinese and English label, in display order.
pub const CHANNELS: &[(&str, &str, &str)] = &[
    (OFFICIAL, "官网", "Official site"),
    (WECHAT, "微信公众号", "WeChat"),
    (ENCYCLOPEDIA, "百科", "Encyclopedia"),
    (QA, "问答社区", "Q&A"),
    (SOCIAL, "社交媒体", "Social media"),
    (VIDEO, "视频平台", "Video"),
    (NEWS, "新闻媒体", "News media"),
    (MEDIA_PLATFORM, "自媒体平台", "Creator platform"),
    (TECH_COMMUNITY, "技术社区", "Tech community"),
    (BLOG, "博客", "Blog"),
    (CODE, "代码托管", "Code hosting"),
    (REVIEW, "点评测评", "Reviews"),
    (BUSINESS_INFO, "企业信息", "Business info"),
    (APP_STORE, "应用商店", "App store"),
    (GOV_EDU, "政府/教育", "Government / education"),
    (FORUM, "论坛", "Forum"),
    (DOCS, "文档分享", "Document sharing"),
    (ECOMMERCE, "电商", "E-commerce"),
    (OTHER, "其他", "Other"),
];

/// The label of channel `key` in `lang`; an unknown key is returned as it is.
pub fn channel_label(key: &str, lang: Lang) -> &str {
    match CHANNELS.iter().find(|(k, _, _)| *k == key) {
        Some((_, zh, en)) => lang.pick(zh, en),
        None => key,
    }
}

const fn p(name_zh: &'static str, name_en: &'static str, channel: &'static str) -> Platform {
    Platform { name_zh, name_en, channel }
}

/// The platform rules: host suffix (lower-case, no leading dot) and platform.
pub const PLATFORM_RULES: &[(&str, Platform)] = &[
    // WeChat
    ("mp.weixin.qq.com", p("微信公众号", "WeChat Official Accounts", WECHAT)),
    ("weixin.qq.com", p("微信", "WeChat", WECHAT)),
    ("weixin.sogou.com", p("搜狗微信", "Sogou WeChat search", WECHAT)),
    // Baidu
    ("baike.baidu.com", p("百度百科", "Baidu Baike", ENCYCLOPEDIA)),
    ("wapbaike.baidu.com", p("百度百科", "Baidu Baike", ENCYCLOPEDIA)),
    ("baijiahao.baidu.com", p("百家号", "Baijiahao", MEDIA_PLATFORM)),
    ("mbd.baidu.com", p("百家号", "Baijiahao", MEDIA_PLATFORM)),
    ("zhidao.baidu.com", p("百度知道", "Baidu Zhidao", QA)),
    ("jingyan.baidu.com", p("百度经验", "Baidu Jingyan", QA)),
    ("tieba.baidu.com", p("百度贴吧", "Baidu Tieba", FORUM)),
    ("wenku.baidu.com", p("百度文库", "Baidu Wenku", DOCS)),
    ("aiqicha.baidu.com", p("爱企查", "Aiqicha", BUSINESS_INFO)),
    ("haokan.baidu.com", p("好看视频", "Haokan Video", VIDEO)),
    // Other Chinese encyclopedias and Q&A
    ("baike.sogou.com", p("搜狗百科", "Sogou Baike", ENCYCLOPEDIA)),
    ("baike.so.com", p("360百科", "360 Baike", ENCYCLOPEDIA)),
    ("baike.com", p("快懂百科", "Baike.com", ENCYCLOPEDIA)),
    ("wiki.mbalib.com", p("MBA智库百科", "MBAlib Wiki", ENCYCLOPEDIA)),
    ("wenwen.sogou.com", p("搜狗问问", "Sogou Wenwen", QA)),
    ("zhihu.com", p("知乎", "Zhihu", QA)),
    // Chinese social and video
    ("xiaohongshu.com", p("小红书", "Xiaohongshu (RED)", SOCIAL)),
    ("xhslink.com", p("小红书", "Xiaohongshu (RED)", SOCIAL)),
    ("weibo.com", p("微博", "Weibo", SOCIAL)),
    ("weibo.cn", p("微博", "Weibo", SOCIAL)),
    ("douban.com", p("豆瓣", "Douban", SOCIAL)),
    ("xueqiu.com", p("雪球", "Xueqiu", SOCIAL)),
    ("douyin.com", p("抖音", "Douyin", VIDEO)),
    ("iesdouyin.com", p("抖音", "Douyin", VIDEO)),
    ("kuaishou.com", p("快手", "Kuaishou", VIDEO)),
    ("bilibili.com", p("哔哩哔哩", "Bilibili", VIDEO)),
    ("b23.tv", p("哔哩哔哩", "Bilibili", VIDEO)),
    ("ixigua.com", p("西瓜视频", "Xigua Video", VIDEO)),
    ("v.qq.com", p("腾讯视频", "Tencent Video", VIDEO)),
    ("youku.com", p("优酷", "Youku", VIDEO)),
    ("iqiyi.com", p("爱奇艺", "iQIYI", VIDEO)),
    // Chinese creator platforms and blogs
    ("toutiao.com", p("今日头条", "Toutiao", MEDIA_PLATFORM)),
    ("om.qq.com", p("企鹅号", "Tencent Penguin Media", MEDIA_PLATFORM)),
    ("yidianzixun.com", p("一点资讯", "Yidian Zixun", MEDIA_PLATFORM)),
    ("woshipm.com", p("人人都是产品经理", "Woshipm", MEDIA_PLATFORM)),
    ("qbitai.com", p("量子位", "QbitAI", MEDIA_PLATFORM)),
    ("jiqizhixin.com", p("机器之心", "Synced (Jiqizhixin)", MEDIA_PLATFORM)),
    ("sspai.com", p("少数派", "SSPAI", BLOG)),
    ("jianshu.com", p("简书", "Jianshu", BLOG)),
    ("360doc.com", p("360个人图书馆", "360doc", DOCS)),
    ("docin.com", p("豆丁网", "Docin", DOCS)),
    ("doc88.com", p("道客巴巴", "Doc88", DOCS)),
    ("book118.com", p("原创力文档", "Book118", DOCS)),
    // Chinese tech communities and code hosting
    ("csdn.net", p("CSDN", "CSDN", TECH_COMMUNITY)),
    ("juejin.cn", p("稀土掘金", "Juejin", TECH_COMMUNITY)),
    ("cnblogs.com", p("博客园", "Cnblogs", TECH_COMMUNITY)),
    ("segmentfault.com", p("思否", "SegmentFault", TECH_COMMUNITY)),
    ("oschina.net", p("开源中国", "OSCHINA", TECH_COMMUNITY)),
    ("infoq.cn", p("InfoQ 中文站", "InfoQ China", TECH_COMMUNITY)),
    ("developer.aliyun.com", p("阿里云开发者社区", "Alibaba Cloud Developer Community", TECH_COMMUNITY)),
    ("51cto.com", p("51CTO", "51CTO", TECH_COMMUNITY)),
    ("v2ex.com", p("V2EX", "V2EX", FORUM)),
    ("gitee.com", p("Gitee", "Gitee", CODE)),
    // Chinese news media
    ("news.qq.com", p("腾讯新闻", "Tencent News", NEWS)),
    ("new.qq.com", p("腾讯新闻", "Tencent News", NEWS)),
    ("view.inews.qq.com", p("腾讯新闻", "Tencent News", NEWS)),
    ("qq.com", p("腾讯网", "Tencent", NEWS)),
    ("sohu.com", p("搜狐", "Sohu", NEWS)),
    ("163.com", p("网易", "NetEase", NEWS)),
    ("sina.com.cn", p("新浪", "Sina", NEWS)),
    ("sina.cn", p("新浪", "Sina", NEWS)),
    ("ifeng.com", p("凤凰网", "iFeng", NEWS)),
    ("thepaper.cn", p("澎湃新闻", "The Paper", NEWS)),
    ("jiemian.com", p("界面新闻", "Jiemian", NEWS)),
    ("huxiu.com", p("虎嗅", "Huxiu", NEWS)),
    ("36kr.com", p("36氪", "36Kr", NEWS)),
    ("ithome.com", p("IT之家", "IT Home", NEWS)),
    ("leiphone.com", p("雷峰网", "Leiphone", NEWS)),
    ("geekpark.net", p("极客公园", "GeekPark", NEWS)),
    ("pconline.com.cn", p("太平洋电脑网", "PConline", NEWS)),
    ("zol.com.cn", p("中关村在线", "ZOL", NEWS)),
    ("guba.eastmoney.com", p("东方财富股吧", "Eastmoney Guba", FORUM)),
    ("eastmoney.com", p("东方财富", "Eastmoney", NEWS)),
    ("people.com.cn", p("人民网", "People's Daily Online", NEWS)),
    ("xinhuanet.com", p("新华网", "Xinhua", NEWS)),
    ("news.cn", p("新华网", "Xinhua", NEWS)),
    ("chinadaily.com.cn", p("中国日报", "China Daily", NEWS)),
    ("cctv.com", p("央视网", "CCTV", NEWS)),
    ("cntv.cn", p("央视网", "CCTV", NEWS)),
    ("cnr.cn", p("央广网", "CNR", NEWS)),
    ("chinanews.com.cn", p("中国新闻网", "China News Service", NEWS)),
    ("chinanews.com", p("中国新闻网", "China News Service", NEWS)),
    ("gmw.cn", p("光明网", "Guangming Online", NEWS)),
    ("ce.cn", p("中国经济网", "China Economic Net", NEWS)),
    ("china.com.cn", p("中国网", "China.org.cn", NEWS)),
    ("youth.cn", p("中国青年网", "Youth.cn", NEWS)),
    ("bjnews.com.cn", p("新京报", "The Beijing News", NEWS)),
    ("guancha.cn", p("观察者网", "Guancha", NEWS)),
    ("caixin.com", p("财新", "Caixin", NEWS)),
    ("yicai.com", p("第一财经", "Yicai", NEWS)),
    ("21jingji.com", p("21世纪经济报道", "21st Century Business Herald", NEWS)),
    ("stcn.com", p("证券时报", "Securities Times", NEWS)),
    ("cls.cn", p("财联社", "Cailian Press", NEWS)),
    // Business information
    ("qcc.com", p("企查查", "Qichacha", BUSINESS_INFO)),
    ("tianyancha.com", p("天眼查", "Tianyancha", BUSINESS_INFO)),
    ("qixin.com", p("启信宝", "Qixin", BUSINESS_INFO)),
    ("gsxt.gov.cn", p("国家企业信用信息公示系统", "National Enterprise Credit Information System", BUSINESS_INFO)),
    ("crunchbase.com", p("Crunchbase", "Crunchbase", BUSINESS_INFO)),
    // Reviews and shops
    ("smzdm.com", p("什么值得买", "SMZDM", REVIEW)),
    ("dianping.com", p("大众点评", "Dianping", REVIEW)),
    ("g2.com", p("G2", "G2", REVIEW)),
    ("capterra.com", p("Capterra", "Capterra", REVIEW)),
    ("trustpilot.com", p("Trustpilot", "Trustpilot", REVIEW)),
    ("gartner.com", p("Gartner", "Gartner", REVIEW)),
    ("producthunt.com", p("Product Hunt", "Product Hunt", REVIEW)),
    ("jd.com", p("京东", "JD.com", ECOMMERCE)),
    ("taobao.com", p("淘宝", "Taobao", ECOMMERCE)),
    ("tmall.com", p("天猫", "Tmall", ECOMMERCE)),
    ("1688.com", p("1688", "1688.com", ECOMMERCE)),
    ("pinduoduo.com", p("拼多多", "Pinduoduo", ECOMMERCE)),
    ("amazon.com", p("亚马逊", "Amazon", ECOMMERCE)),
    // App stores
    ("apps.apple.com", p("App Store", "App Store", APP_STORE)),
    ("itunes.apple.com", p("App Store", "App Store", APP_STORE)),
    ("play.google.com", p("Google Play", "Google Play", APP_STORE)),
    ("sj.qq.com", p("应用宝", "Tencent MyApp", APP_STORE)),
    ("app.mi.com", p("小米应用商店", "Xiaomi GetApps", APP_STORE)),
    ("appgallery.huawei.com", p("华为应用市场", "Huawei AppGallery", APP_STORE)),
    ("appgallery.cloud.huawei.com", p("华为应用市场", "Huawei AppGallery", APP_STORE)),
    ("app.hicloud.com", p("华为应用市场", "Huawei AppGallery", APP_STORE)),
    // Government and education (suffix rules)
    ("gov.cn", p("政府网站", "Government site", GOV_EDU)),
    ("edu.cn", p("教育机构", "Education", GOV_EDU)),
    ("ac.cn", p("科研机构", "Research institute", GOV_EDU)),
    ("cas.cn", p("中国科学院", "Chinese Academy of Sciences", GOV_EDU)),
    ("gov", p("政府网站", "Government site", GOV_EDU)),
    ("edu", p("教育机构", "Education", GOV_EDU)),
    ("gov.uk", p("政府网站", "Government site", GOV_EDU)),
    ("ac.uk", p("教育机构", "Education", GOV_EDU)),
    ("gov.hk", p("政府网站", "Government site", GOV_EDU)),
    ("edu.hk", p("教育机构", "Education", GOV_EDU)),
    ("gov.tw", p("政府网站", "Government site", GOV_EDU)),
    ("edu.tw", p("教育机构", "Education", GOV_EDU)),
    ("gov.au", p("政府网站", "Government site", GOV_EDU)),
    ("edu.au", p("教育机构", "Education", GOV_EDU)),
    ("gov.sg", p("政府网站", "Government site", GOV_EDU)),
    ("edu.sg", p("教育机构", "Education", GOV_EDU)),
    // Global encyclopedias, communities, social and video
    ("wikipedia.org", p("维基百科", "Wikipedia", ENCYCLOPEDIA)),
    ("britannica.com", p("大英百科全书", "Britannica", ENCYCLOPEDIA)),
    ("reddit.com", p("Reddit", "Reddit", FORUM)),
    ("news.ycombinator.com", p("Hacker News", "Hacker News", FORUM)),
    ("quora.com", p("Quora", "Quora", QA)),
    ("stackoverflow.com", p("Stack Overflow", "Stack Overflow", QA)),
    ("stackexchange.com", p("Stack Exchange", "Stack Exchange", QA)),
    ("youtube.com", p("YouTube", "YouTube", VIDEO)),
    ("youtu.be", p("YouTube", "YouTube", VIDEO)),
    ("vimeo.com", p("Vimeo", "Vimeo", VIDEO)),
    ("tiktok.com", p("TikTok", "TikTok", VIDEO)),
    ("linkedin.com", p("领英", "LinkedIn", SOCIAL)),
    ("x.com", p("X（推特）", "X (Twitter)", SOCIAL)),
    ("twitter.com", p("X（推特）", "X (Twitter)", SOCIAL)),
    ("facebook.com", p("Facebook", "Facebook", SOCIAL)),
    ("instagram.com", p("Instagram", "Instagram", SOCIAL)),
    ("github.com", p("GitHub", "GitHub", CODE)),
    ("gitlab.com", p("GitLab", "GitLab", CODE)),
    ("huggingface.co", p("Hugging Face", "Hugging Face", CODE)),
    ("github.io", p("GitHub Pages", "GitHub Pages", BLOG)),
    ("medium.com", p("Medium", "Medium", BLOG)),
    ("substack.com", p("Substack", "Substack", BLOG)),
    ("dev.to", p("DEV Community", "DEV Community", TECH_COMMUNITY)),
    // Global news media
    ("reuters.com", p("路透社", "Reuters", NEWS)),
    ("bloomberg.com", p("彭博社", "Bloomberg", NEWS)),
    ("nytimes.com", p("纽约时报", "The New York Times", NEWS)),
    ("bbc.co.uk", p("BBC", "BBC", NEWS)),
    ("bbc.com", p("BBC", "BBC", NEWS)),
    ("theguardian.com", p("卫报", "The Guardian", NEWS)),
    ("cnn.com", p("CNN", "CNN", NEWS)),
    ("forbes.com", p("福布斯", "Forbes", NEWS)),
    ("techcrunch.com", p("TechCrunch", "TechCrunch", NEWS)),
    ("theverge.com", p("The Verge", "The Verge", NEWS)),
    ("wsj.com", p("华尔街日报", "The Wall Street Journal", NEWS)),
    ("ft.com", p("金融时报", "Financial Times", NEWS)),
    ("cnbc.com", p("CNBC", "CNBC", NEWS)),
    ("apnews.com", p("美联社", "AP News", NEWS)),
    ("washingtonpost.com", p("华盛顿邮报", "The Washington Post", NEWS)),
    ("economist.com", p("经济学人", "The Economist", NEWS)),
    ("businessinsider.com", p("Business Insider", "Business Insider", NEWS)),
    ("wired.com", p("连线", "Wired", NEWS)),
    ("engadget.com", p("Engadget", "Engadget", NEWS)),
    ("arstechnica.com", p("Ars Technica", "Ars Technica", NEWS)),
    ("venturebeat.com", p("VentureBeat", "VentureBeat", NEWS)),
    ("zdnet.com", p("ZDNET", "ZDNET", NEWS)),
    ("axios.com", p("Axios", "Axios", NEWS)),
    ("time.com", p("时代周刊", "TIME", NEWS)),
    ("fortune.com", p("财富", "Fortune", NEWS)),
    ("scmp.com", p("南华早报", "South China Morning Post", NEWS)),
    ("nikkei.com", p("日经", "Nikkei", NEWS)),
];

/// [`PLATFORM_RULES`] as one list of fields: suffix, Chinese name, English name, channel.
const RULE_FIELDS: [&str; PLATFORM_RULES.len() * 4] = {
    let mut out = [""; PLATFORM_RULES.len() * 4];
    let mut i = 0;
    while i < PLATFORM_RULES.len() {
        let (suffix, p) = &PLATFORM_RULES[i];
        (out[4 * i], out[4 * i + 1], out[4 * i + 2], out[4 * i + 3]) = (suffix, p.name_zh, p.name_en, p.channel);
        i += 1;
    }
    out
};

/// The rules as one block of text (`text::packed`): the web bundle holds no pointers per rule.
static PACKED: [u8; packed_len(&RULE_FIELDS)] = pack(&RULE_FIELDS);

/// The rules of [`PLATFORM_RULES`], split from [`PACKED`] on first use.
fn rules() -> &'static [(&'static str, Platform)] {
    static RULES: std::sync::OnceLock<Vec<(&'static str, Platform)>> = std::sync::OnceLock::new();
    RULES.get_or_init(|| {
        let mut f = fields(&PACKED);
        let mut rules = Vec::with_capacity(PLATFORM_RULES.len());
        while let (Some(suffix), Some(name_zh), Some(name_en), Some(channel)) = (f.next(), f.next(), f.next(), f.next())
        {
            rules.push((suffix, Platform { name_zh, name_en, channel }));
        }
        rules
    })
}

fn find_rule(suffix: &str) -> Option<&'static Platform> {
    rules().iter().find(|(s, _)| *s == suffix).map(|(_, p)| p)
}

/// The most specific rule among `name` and its parent names (`a.b.c` → `a.b.c`, `b.c`, `c`).
fn lookup_suffixes(name: &str) -> Option<&'static Platform> {
    let mut rest = name;
    loop {
        if let Some(platform) = find_rule(rest) {
            return Some(platform);
        }
        let (_, parent) = rest.split_once('.')?;
        rest = parent;
    }
}

/// The platform of `host` (lower-case, as in `UrlParts`) by the most specific matching
/// rule; `domain` (its registrable domain) is consulted only when it is not a suffix of
/// `host`, so callers that have only a domain still get an answer. `None` when no rule
/// matches.
pub fn lookup_platform(host: &str, domain: &str) -> Option<&'static Platform> {
    let host = host.trim().trim_end_matches('.').to_ascii_lowercase();
    let domain = domain.trim().trim_end_matches('.').to_ascii_lowercase();
    if !host.is_empty() {
        if let Some(platform) = lookup_suffixes(&host) {
            return Some(platform);
        }
        if host == domain || host.ends_with(&format!(".{domain}")) {
            return None;
        }
    }
    if domain.is_empty() {
        return None;
    }
    lookup_suffixes(&domain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packed_rules_are_the_table() {
        assert_eq!(rules(), PLATFORM_RULES);
    }

    #[test]
    fn rules_are_unique_lower_case_and_use_known_channels() {
        for (i, (suffix, platform)) in PLATFORM_RULES.iter().enumerate() {
            assert_eq!(*suffix, suffix.to_ascii_lowercase(), "{suffix}");
            assert!(!suffix.starts_with('.') && !suffix.ends_with('.'), "{suffix}");
            assert!(PLATFORM_RULES[..i].iter().all(|(s, _)| s != suffix), "duplicate rule {suffix}");
            assert!(CHANNELS.iter().any(|(k, _, _)| *k == platform.channel), "{suffix}");
            assert_ne!(platform.channel, OFFICIAL, "{suffix}: official is for targets only");
            assert!(!platform.name_zh.is_empty() && !platform.name_en.is_empty());
        }
    }

    #[test]
    fn channel_keys_are_unique() {
        for (i, (key, _, _)) in CHANNELS.iter().enumerate() {
            assert!(CHANNELS[..i].iter().all(|(k, _, _)| k != key), "{key}");
        }
    }
}
