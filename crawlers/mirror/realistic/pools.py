"""Word pools and name tables the world draws from (surnames, given names, place characters,
provinces, title words, taxonomies, compounds ...), and the spellings made from them (pinyin, variant forms)."""

from __future__ import annotations

PROVINCES = ("河北省", "山西省", "辽宁省", "吉林省", "黑龙江省", "江苏省", "浙江省", "安徽省", "福建省", "江西省",
             "山东省", "河南省", "湖北省", "湖南省", "广东省", "海南省", "四川省", "贵州省", "云南省", "陕西省",
             "甘肃省", "青海省")
N_PROV = len(PROVINCES)
DIRECTIONS = ("东部", "西部", "南部", "北部", "中部", "东南部", "东北部", "西南部", "西北部")
CLIMATES = ("亚热带季风气候", "温带季风气候", "温带大陆性气候", "高原山地气候", "中亚热带湿润气候")
SEAS = ("东海", "南海", "黄海", "渤海")
RIVER_SYSTEMS = ("长江", "黄河", "珠江", "淮河", "海河", "辽河", "松花江", "钱塘江", "闽江")
RANGES = ("秦岭", "太行山脉", "武夷山脉", "南岭", "大别山", "巫山", "横断山脉", "祁连山脉", "长白山脉", "燕山",
          "大巴山", "雪峰山", "罗霄山脉", "武陵山脉", "吕梁山脉")


def _pool(text: str) -> tuple[tuple[str, str], ...]:
    """'王wang 李li' -> (('王', 'wang'), ('李', 'li'))."""
    out = []
    for token in text.split():
        cut = next(n for n, ch in enumerate(token) if ch.isascii())
        out.append((token[:cut], token[cut:]))
    return tuple(out)


SURNAMES = _pool(
    "王wang 李li 张zhang 刘liu 陈chen 杨yang 黄huang 赵zhao 吴wu 周zhou 徐xu 孙sun 马ma 朱zhu 胡hu 郭guo "
    "何he 高gao 林lin 罗luo 郑zheng 梁liang 谢xie 宋song 唐tang 许xu 韩han 冯feng 邓deng 曹cao 彭peng "
    "曾zeng 萧xiao 田tian 董dong 袁yuan 潘pan 蒋jiang 蔡cai 余yu 杜du 叶ye 程cheng 苏su 魏wei 丁ding "
    "任ren 沈shen 姚yao 卢lu 姜jiang 崔cui 钟zhong 谭tan 陆lu 汪wang 范fan 金jin 石shi 廖liao 贾jia "
    "夏xia 韦wei 方fang 白bai 邹zou 孟meng 熊xiong 秦qin 邱qiu 江jiang 尹yin 薛xue 段duan 雷lei 侯hou "
    "龙long 史shi 陶tao 黎li 贺he 顾gu 毛mao 郝hao 龚gong 邵shao 万wan 钱qian 严yan 武wu 戴dai 孔kong "
    "汤tang 欧阳ouyang 司马sima")
# No given-name character ends a river or mountain name (江, 山), so no person shares a title with one.
GIVEN = _pool(
    "文wen 武wu 德de 仁ren 义yi 礼li 智zhi 信xin 忠zhong 孝xiao 安an 平ping 宁ning 康kang 泰tai 福fu "
    "寿shou 明ming 光guang 辉hui 华hua 英ying 杰jie 俊jun 秀xiu 兰lan 梅mei 竹zhu 菊ju 松song 柏bai "
    "川chuan 海hai 涛tao 波bo 云yun 雨yu 雪xue 霞xia 春chun 秋qiu 晨chen 曦xi 鹏peng 飞fei "
    "翔xiang 鸿hong 志zhi 远yuan 博bo 达da 方fang 正zheng 清qing 源yuan 泉quan 之zhi 甫fu 卿qing "
    "贤xian 良liang 善shan 敬jing 谦qian 恒heng 瑞rui 祥xiang 嘉jia 锦jin 绍shao 廷ting 宗zong 承cheng "
    "继ji 允yun 若ruo 静jing 婉wan 淑shu 慧hui 琳lin 瑶yao 璋zhang 琦qi 衡heng 逸yi 然ran 彦yan 昭zhao "
    "启qi 济ji 鼎ding 铭ming 钧jun 晓xiao 立li 国guo 建jian 振zhen 树shu 荣rong 耀yao 炳bing 焕huan")
FEMALE_CHARS = set("兰梅秀霞婉淑慧琳瑶静雪春晓英菊")
PLACE_CHARS = _pool(
    "安an 平ping 宁ning 和he 兴xing 隆long 丰feng 泰tai 昌chang 永yong 新xin 清qing 源yuan 华hua 阳yang "
    "江jiang 石shi 青qing 白bai 云yun 南nan 北bei 东dong 西xi 溪xi 桥qiao 林lin 松song 柳liu 梅mei 桃tao "
    "金jin 银yin 铜tong 龙long 凤feng 鹤he 鹿lu 马ma 牛niu 虎hu 岭ling 峰feng 泉quan 潭tan 湾wan 沙sha "
    "港gang 关guan 城cheng 庄zhuang 坪ping 塘tang 陵ling 岩yan 谷gu 洲zhou 浦pu 宝bao 德de 嘉jia 福fu "
    "瑞rui 富fu 盛sheng 广guang 远yuan 定ding 通tong 会hui 乐le 崇chong 仁ren 延yan 大da 高gao 上shang "
    "双shuang 三san 五wu 九jiu 黄huang 红hong 翠cui 灵ling 仙xian 章zhang 怀huai 临lin 武wu")
N_PLACE = len(PLACE_CHARS)

BOOK_WORDS = ("江湖 山河 青云 烟雨 长夜 故园 风雪 星河 白鹿 红尘 沧海 浮生 寒山 孤城 大地 明月 归途 暗流 铁血 丝路 "
              "金陵 长安 北国 南渡 春秋 秋水 落花 残阳 远山 古道 渔舟 夜航 晚钟 霜天 孤帆 野火 黄沙 碧海 苍山 云梦 "
              "松风 竹影 梅雪 兰亭 桃源 柳岸 荷塘 秋声 冬雪 春雷 江南 塞北 关山 边关 长河 大漠 草原 渔村 山村 小城").split()
BOOK_SUFFIXES = "记 传 录 志 梦 谣 赋 集 纪事 往事 笔记 杂谈 演义 外史".split()
FILM_SUFFIXES = "风云 岁月 传奇 之恋 行动 密令 少年 天下 归来 故事 人生 旧梦".split()
POEM_VERBS = "登 送 寄 望 题 忆 咏 过 宿 别".split()
POEM_NOUNS = "楼 亭 寺 台 阁 江 山 月".split()
CI_TUNES = "水调歌头 念奴娇 满江红 浣溪沙 蝶恋花 临江仙 西江月 菩萨蛮 清平乐 如梦令".split()
INDUSTRIES = (("科技", "Technology"), ("电子", "Electronics"), ("药业", "Pharmaceutical"), ("重工", "Heavy Industry"),
              ("食品", "Food"), ("传媒", "Media"), ("化工", "Chemical"), ("纺织", "Textile"), ("机械", "Machinery"),
              ("能源", "Energy"), ("物流", "Logistics"), ("建材", "Building Materials"))
BUSINESS = {"科技": "软件开发、信息技术服务、系统集成、数据处理、智能硬件", "电子": "电子元器件、集成电路、显示面板、传感器、消费电子",
            "药业": "化学药品、中成药、医疗器械、原料药、保健食品", "重工": "工程机械、矿山设备、起重设备、港口机械、钢结构",
            "食品": "乳制品、饮料、休闲食品、调味品、粮油加工", "传媒": "影视制作、广告发布、出版发行、网络视听、演艺经纪",
            "化工": "精细化工、化肥、农药、涂料、合成材料", "纺织": "棉纺织、印染、服装、家用纺织品、化学纤维",
            "机械": "数控机床、农业机械、通用设备、汽车零部件、液压件", "能源": "火力发电、风力发电、光伏发电、煤炭开采、输配电",
            "物流": "仓储、货物运输、快递、供应链管理、冷链物流", "建材": "水泥、玻璃、陶瓷、新型墙体材料、防水材料"}
UNIVERSITY_KINDS = (("理工大学", "University of Technology", "理工类"), ("师范大学", "Normal University", "师范类"),
                    ("农业大学", "Agricultural University", "农林类"), ("医科大学", "Medical University", "医药类"),
                    ("财经大学", "University of Finance and Economics", "财经类"), ("大学", "University", "综合类"),
                    ("师范学院", "Normal College", "师范类"), ("科技大学", "University of Science and Technology", "理工类"))
ORG_KINDS = (("学会", "Society", "社会团体"), ("协会", "Association", "社会团体"), ("研究院", "Academy", "事业单位"),
             ("研究所", "Institute", "事业单位"), ("基金会", "Foundation", "非营利组织"), ("博物馆", "Museum", "事业单位"),
             ("科学院", "Academy of Sciences", "学术机构"), ("图书馆", "Library", "事业单位"))
ORG_FIELDS = ("地方史", "植物", "水利", "文物", "农业", "地质", "民俗", "中医药")
EVENT_KINDS = (("之战", "战役"), ("起义", "农民起义"), ("之变", "政变"), ("会战", "战役"), ("变法", "政治改革"),
               ("会盟", "会盟"), ("之役", "战役"))
TREATY_KINDS = ("条约", "和约", "盟约", "协定")
# Plant bases: name, 科, 属, 目, 纲, 门, Latin genus.
PLANT_BASES = (("杜鹃", "杜鹃花科", "杜鹃花属", "杜鹃花目", "双子叶植物纲", "被子植物门", "Rhododendron"),
               ("山茶", "山茶科", "山茶属", "杜鹃花目", "双子叶植物纲", "被子植物门", "Camellia"),
               ("冷杉", "松科", "冷杉属", "松杉目", "松杉纲", "裸子植物门", "Abies"),
               ("木兰", "木兰科", "木兰属", "木兰目", "双子叶植物纲", "被子植物门", "Magnolia"),
               ("报春", "报春花科", "报春花属", "报春花目", "双子叶植物纲", "被子植物门", "Primula"),
               ("紫堇", "罂粟科", "紫堇属", "罂粟目", "双子叶植物纲", "被子植物门", "Corydalis"),
               ("槭", "无患子科", "槭属", "无患子目", "双子叶植物纲", "被子植物门", "Acer"),
               ("百合", "百合科", "百合属", "百合目", "单子叶植物纲", "被子植物门", "Lilium"),
               ("龙胆", "龙胆科", "龙胆属", "龙胆目", "双子叶植物纲", "被子植物门", "Gentiana"),
               ("绣线菊", "蔷薇科", "绣线菊属", "蔷薇目", "双子叶植物纲", "被子植物门", "Spiraea"),
               ("荚蒾", "五福花科", "荚蒾属", "川续断目", "双子叶植物纲", "被子植物门", "Viburnum"),
               ("柳", "杨柳科", "柳属", "杨柳目", "双子叶植物纲", "被子植物门", "Salix"))
ANIMAL_BASES = (("长尾雉", "雉科", "长尾雉属", "鸡形目", "鸟纲", "Syrmaticus"),
                ("噪鹛", "噪鹛科", "噪鹛属", "雀形目", "鸟纲", "Garrulax"),
                ("林蛙", "蛙科", "蛙属", "无尾目", "两栖纲", "Rana"),
                ("小鲵", "小鲵科", "小鲵属", "有尾目", "两栖纲", "Hynobius"),
                ("竹鼠", "鼹形鼠科", "竹鼠属", "啮齿目", "哺乳纲", "Rhizomys"),
                ("麂", "鹿科", "麂属", "偶蹄目", "哺乳纲", "Muntiacus"),
                ("猕猴", "猴科", "猕猴属", "灵长目", "哺乳纲", "Macaca"),
                ("锦蛇", "游蛇科", "锦蛇属", "有鳞目", "爬行纲", "Elaphe"),
                ("裂腹鱼", "鲤科", "裂腹鱼属", "鲤形目", "辐鳍鱼纲", "Schizothorax"),
                ("歌鸲", "鹟科", "歌鸲属", "雀形目", "鸟纲", "Luscinia"),
                ("鼯鼠", "松鼠科", "鼯鼠属", "啮齿目", "哺乳纲", "Petaurista"))
INSECT_BASES = (("凤蝶", "凤蝶科", "凤蝶属", "鳞翅目", "Papilio"), ("天牛", "天牛科", "天牛属", "鞘翅目", "Cerambyx"),
                ("蜻", "蜻科", "蜻属", "蜻蜓目", "Libellula"), ("螳", "螳科", "螳属", "螳螂目", "Mantis"),
                ("萤", "萤科", "萤属", "鞘翅目", "Luciola"))
LATIN_EPITHETS = ("sinensis", "grandiflora", "longicauda", "purpurea", "montana", "alpina", "minor", "major",
                  "orientalis", "maculata", "rubra", "alba", "tenuis", "robusta", "elegans", "silvestris")
# Compound bases: name, atom counts; substituents: name, atoms added, hydrogens replaced.
COMPOUND_BASES = (("苯", {"C": 6, "H": 6}), ("苯酚", {"C": 6, "H": 6, "O": 1}), ("苯胺", {"C": 6, "H": 7, "N": 1}),
                  ("苯甲酸", {"C": 7, "H": 6, "O": 2}), ("吡啶", {"C": 5, "H": 5, "N": 1}), ("甲苯", {"C": 7, "H": 8}),
                  ("苯甲醛", {"C": 7, "H": 6, "O": 1}), ("萘", {"C": 10, "H": 8}), ("吲哚", {"C": 8, "H": 7, "N": 1}),
                  ("喹啉", {"C": 9, "H": 7, "N": 1}), ("呋喃", {"C": 4, "H": 4, "O": 1}),
                  ("噻吩", {"C": 4, "H": 4, "S": 1}), ("苯甲醚", {"C": 7, "H": 8, "O": 1}),
                  ("苯乙酮", {"C": 8, "H": 8, "O": 1}), ("联苯", {"C": 12, "H": 10}))
SUBSTITUENTS = (("甲基", {"C": 1, "H": 3}), ("氯", {"Cl": 1}), ("硝基", {"N": 1, "O": 2}), ("氨基", {"N": 1, "H": 2}),
                ("羟基", {"O": 1, "H": 1}), ("甲氧基", {"C": 1, "H": 3, "O": 1}), ("乙基", {"C": 2, "H": 5}),
                ("氟", {"F": 1}), ("溴", {"Br": 1}), ("乙酰基", {"C": 2, "H": 3, "O": 1}),
                ("羧基", {"C": 1, "O": 2, "H": 1}), ("氰基", {"C": 1, "N": 1}))
ATOMIC_MASS = {"C": 12.011, "H": 1.008, "N": 14.007, "O": 15.999, "S": 32.06, "Cl": 35.45, "F": 18.998, "Br": 79.904}
APPEARANCES = ("白色结晶性粉末", "无色液体", "淡黄色针状晶体", "无色至淡黄色液体", "白色固体", "黄色结晶", "浅棕色油状液体")

# Person kinds: ancient or modern, CDTP domain, occupations, weight.
PERSON_KINDS = {
    "official": (True, "history_politics", ("政治家", "官员", "改革家", "文学家"), 14),
    "general": (True, "history_politics", ("军事家", "将领", "政治家"), 8),
    "poet": (True, "humanities_society", ("诗人", "词人", "文学家", "书法家"), 12),
    "scholar": (True, "humanities_society", ("思想家", "学者", "史学家", "教育家", "经学家"), 8),
    "painter": (True, "humanities_society", ("画家", "书法家", "诗人"), 5),
    "physician": (True, "technology_economics", ("医学家", "药学家"), 3),
    "writer": (False, "humanities_society", ("作家", "文学家", "翻译家", "诗人", "散文家"), 10),
    "scientist": (False, "technology_economics", ("物理学家", "化学家", "数学家", "天文学家"), 9),
    "engineer": (False, "technology_economics", ("工程师", "桥梁专家", "水利专家", "机械工程专家"), 5),
    "entrepreneur": (False, "technology_economics", ("企业家", "实业家", "慈善家"), 5),
    "artist": (False, "humanities_society", ("画家", "书法家", "作曲家", "音乐家"), 6),
    "actor": (False, "humanities_society", ("演员", "表演艺术家", "导演"), 5),
    "director": (False, "humanities_society", ("导演", "编剧", "演员"), 3),
    "naturalist": (False, "nature_environment", ("植物学家", "地质学家", "动物学家", "生态学家"), 3),
    "revolutionary": (False, "history_politics", ("革命家", "政治家", "外交家", "军事家"), 4),
}
ACHIEVEMENTS = {
    "official": ("整顿吏治", "兴修水利", "推行新法", "赈济灾民", "编纂典籍", "改革赋税"),
    "general": ("平定叛乱", "抵御外侮", "收复失地", "整训军队", "修筑边塞"),
    "poet": ("开创一代诗风", "整理地方文献", "提携后进诗人"),
    "scholar": ("创办书院", "注解经典", "开创学派", "校勘古籍"),
    "painter": ("开创画派", "整理前代画论"),
    "physician": ("编撰医书", "推广种痘", "整理验方"),
    "writer": ("开创乡土文学", "翻译外国名著", "创办文学刊物"),
    "scientist": ("提出新的理论模型", "主持重大科研项目", "培养大批科研人才", "创建重点实验室"),
    "engineer": ("主持修建大桥", "设计大型水利工程", "改进机车制造工艺"),
    "entrepreneur": ("创办实业", "捐资兴学", "引进先进设备"),
    "artist": ("创立画派", "整理民间音乐", "创作大量作品"),
    "actor": ("塑造多个经典角色", "推动戏剧改革"),
    "director": ("开创纪实风格", "培养青年演员"),
    "naturalist": ("发现多个新物种", "主持野外科学考察", "编写地方植物志"),
    "revolutionary": ("参与创建地方组织", "领导地方起义", "参与外交谈判"),
}
OFFICES = ("户部尚书", "礼部侍郎", "翰林学士", "太守", "节度使", "知府", "御史大夫", "参知政事", "刺史", "兵部尚书")
TITLES_OF_NOBILITY = ("侯", "公", "伯")
POSTHUMOUS = ("文正", "文忠", "忠武", "文襄", "武穆", "忠烈", "文定", "文恭", "忠毅", "文简")
HAO_SUFFIXES = ("居士", "先生", "山人", "道人", "散人", "老人")
ETHNIC = (("汉族", 85), ("满族", 4), ("回族", 4), ("蒙古族", 3), ("壮族", 2), ("苗族", 2))
ZODIAC = ((1, 20, "摩羯座"), (2, 19, "水瓶座"), (3, 21, "双鱼座"), (4, 20, "白羊座"), (5, 21, "金牛座"),
          (6, 22, "双子座"), (7, 23, "巨蟹座"), (8, 23, "狮子座"), (9, 23, "处女座"), (10, 24, "天秤座"),
          (11, 23, "天蝎座"), (12, 22, "射手座"))
BOOK_GENRES_ANCIENT = ("章回体长篇小说", "笔记小说", "诗集", "文集", "史书", "游记")
BOOK_GENRES_MODERN = ("长篇小说", "中篇小说", "散文集", "短篇小说集", "诗集", "报告文学")
POEM_FORMS = (("五言绝句", 20), ("七言绝句", 28), ("五言律诗", 40), ("七言律诗", 56), ("古体诗", 0), ("乐府诗", 0))
POEM_WORDS = ("秋风", "明月", "孤舟", "寒山", "落日", "春水", "归雁", "夜雨", "青山", "白云", "长河", "古道", "残灯", "霜林")
POEM_VERBS_IN_LINE = ("照", "落", "送", "入", "满", "映", "隔", "绕", "生", "尽")
FILM_GENRES = ("剧情", "历史", "战争", "爱情", "喜剧", "传记", "家庭", "武侠", "悬疑", "动作")
TV_CHANNELS = ("中央电视台", "湖南卫视", "浙江卫视", "江苏卫视", "北京卫视")
PUBLISHERS = ("出版社", "书局", "书店", "印书馆")
PERIODICALS = ("月刊", "日报", "周刊", "文学", "晨报")
UNIVERSITY_TAGS = ("双一流", "211工程", "省部共建高校", "博士学位授予单位", "卓越工程师教育培养计划")
ENTERPRISE_KINDS = ("民营企业", "国有企业", "股份有限公司", "中外合资企业", "有限责任公司")
EXCHANGES = ("上海证券交易所", "深圳证券交易所", "香港联合交易所")
SIGHT_SUFFIXES = ("寺", "塔", "古镇", "公园", "楼", "桥", "祠", "书院", "故居", "古城墙")
MOUNTAIN_SIGHTS = ("寺", "观", "瀑布", "石窟", "古道", "天池", "云海", "洞")
SCENIC_LEVELS = ("国家5A级旅游景区", "国家4A级旅游景区", "国家3A级旅游景区")
LAKE_KINDS = ("淡水湖", "咸水湖", "构造湖", "堰塞湖", "火山口湖", "冰碛湖")
PROTECTION_PLANT = ("国家一级保护植物", "国家二级保护植物", "近危", "无危")
PROTECTION_ANIMAL = ("国家一级保护野生动物", "国家二级保护野生动物", "近危", "无危")
MEDICINAL_PARTS = ("根", "叶", "花", "果实", "树皮", "全草")
EFFECTS = ("清热解毒", "活血化瘀", "止咳平喘", "祛风除湿", "消肿止痛", "健脾和胃", "安神益智", "凉血止血")
DRUG_CLASSES = ("解热镇痛药", "抗菌药", "抗疟药", "局部麻醉药", "抗氧化剂")
EVENT_RESULTS = ("起义军失败", "双方议和", "守军获胜", "改革中途而废", "联军获胜", "叛军被平定")
EVENT_MEANINGS = ("加速了当时政权的衰落", "巩固了边疆的统治", "推动了地方制度的变革", "缓和了当时的社会矛盾")
TREATY_TERMS = ("割地", "赔偿军费", "开放通商口岸", "划定边界", "互派使节", "减免关税", "释放俘虏")
TREATY_NATURES = ("不平等条约", "和约", "边界条约", "通商条约")

# Traditional or variant forms: a near duplicate's title spelling (華夏 for 华夏).
_VARIANT = dict(zip(
    "华国东龙长云兴丰宁阳凤飞乐书庆丽红兰鸣钟陈刘张赵吴孙郑杨马许冯邓萧叶苏卢蒋韩贾钱汤顾龚谭严罗谢宝伟义达贤远"
    "进礼卫鹏鸿涛铭锦门关桥楼阁县镇乡岭湾汉广济记传录诗梦谣赋杂条约协会学电药业纺织机师范农医财经术战变鹤银铜"
    "凤庄坝沟辉轩鹃胆绣线荚鹛鲵猕鱼鸲萤联羟酰湖岩",
    "華國東龍長雲興豐寧陽鳳飛樂書慶麗紅蘭鳴鍾陳劉張趙吳孫鄭楊馬許馮鄧蕭葉蘇盧蔣韓賈錢湯顧龔譚嚴羅謝寶偉義達賢遠"
    "進禮衛鵬鴻濤銘錦門關橋樓閣縣鎮鄉嶺灣漢廣濟記傳錄詩夢謠賦雜條約協會學電藥業紡織機師範農醫財經術戰變鶴銀銅"
    "鳳莊壩溝輝軒鵑膽繡線莢鶥鯢獼魚鴝螢聯羥醯湖巖"))
_FULLWIDTH = str.maketrans("0123456789-", "０１２３４５６７８９－")


def _latin(syllables: list[str]) -> str:
    """Pinyin run together as in 外文名: Anping, Xi'an."""
    out = syllables[0].capitalize()
    for syl in syllables[1:]:
        out += ("'" if syl[0] in "aeo" else "") + syl
    return out


def _variant(name: str) -> str:
    """The traditional (or full-width) spelling of a title, for near duplicates; the same length."""
    out = "".join(_VARIANT.get(ch, ch) for ch in name)
    return out if out != name else name.translate(_FULLWIDTH)
