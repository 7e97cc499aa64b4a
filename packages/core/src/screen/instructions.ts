/**
 * The instruction screen: text that reads as instructions to a model rather than as content.
 * Memory refuses such text (it is later put in front of a model); kinds whose tools come
 * from an upstream screen its descriptions and results with it before a model sees them. It
 * runs over normalised forms (see normalise.ts), in the languages the product is used in
 * (English, German, French, Spanish, Portuguese, Italian, Dutch, Russian, Chinese in both
 * scripts, Japanese, Korean), and recognises shapes rather than a word list: overriding earlier
 * instructions, standing orders aimed at the assistant ("from now on", "in every answer", "when
 * asked anything … call …"), calls of tools (tool-shaped names and the tenant's own tools), role
 * and tool-call markup, HTML and markdown comments, hidden exfiltration and concealment. Each
 * finding names the rule, never the text. Measured on memory's labelled corpus
 * (`services/memory/corpus`,
 * `pnpm bench`); structure — typed facts, staging, recall as data — is the first defence.
 */
import { screenForms } from './normalise.js';
import type { ScreenForms } from './normalise.js';

/** What else the screen may know. */
export interface InstructionContext {
  /** The tool names offered in the writer's tenant: naming one in free text is a tool call. */
  toolNames?: ReadonlySet<string>;
  /**
   * Tool names are expected (a saved query's or skill's own description and steps): only
   * instructions around them are refused, not the names.
   */
  allowToolNames?: boolean;
  /**
   * The text describes a tool (an upstream tool's description): plain talk of using "the
   * tool" and of what "you" need to pass is expected; every other rule still applies.
   */
  describesTool?: boolean;
}

interface Rule {
  reason: string;
  /** A rule about naming tools, skipped where tool names are expected. */
  names?: 'tools';
  /**
   * A rule about talk of using a tool ("call the tool", "you need to"), skipped for a tool's
   * own description, which is addressed to whoever uses it.
   */
  about?: 'tool use';
  /** Which form the pattern runs over (default `plain`). */
  form?: keyof ScreenForms;
  pattern: RegExp;
}

// English building blocks, over the skeleton (look-alikes and digits folded to Latin).
const IGNORE = '(?:ignore|disregard|forget|override|bypass|skip|discard|drop|neglect|abandon)';
const EARLIER =
  '(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial|old|existing|current|system|developer|your|all|any|the|these|those|every|other)';
const INSTRUCTIONS =
  '(?:instructions?|prompts?|rules|directions?|directives?|guidelines?|guidance|guardrails?|commands?|constraints|polic(?:y|ies)|context|messages?|programming|training|restrictions|safety|filters?)';
const ASSISTANT = '(?:you|the (?:assistant|ai|model|bot|agent|llm|chatbot)|assistant|ai|model)';
const EVERY_ANSWER =
  '(?:(?:every|each|all|any|all future|all your|your) (?:answers?|responses?|replies|reply|messages?|outputs?|turns?|conversations?)|(?:every|each|any) (?:questions?|requests?))';
/** What a standing order makes the assistant do (narrower than DIRECTIVE: no "answer", "say"). */
const ACTION =
  '(?:include|add|append|prepend|insert|attach|call|invoke|run|execute|send|forward|email|post|upload|cancel|delete|approve|refund|reveal|print|output|set|change|mark|update|export|leak|use the)';
const DIRECTIVE =
  '(?:include|add|append|prepend|insert|attach|mention|say|reply|respond|answer|write|output|print|show|reveal|send|call|invoke|run|execute|use|set|change|cancel|delete|approve|refund|mark|update|start|end|begin|tell|ask|forward|email|post|upload)';

const RULES: readonly Rule[] = [
  // Markup that hides text or speaks as a role.
  { reason: 'hidden comment', pattern: /<!--|-->|^\s*\[[^\]]*\]:\s*(?:#|<>)\s*\(/m },
  {
    reason: 'markup',
    pattern:
      /<\s*\/?\s*(?:script|style|iframe|img|svg|object|embed|link|meta|form|input|details|summary|span|div|a)\b[^>]*>|\bon(?:error|load|click|mouseover)\s*=/,
  },
  {
    reason: 'role tag spoofing',
    pattern:
      /<\|(?:im_start|im_end|im_sep|system|user|assistant|developer|endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\|>|<\/?(?:system|assistant|developer|instructions?|sys|user|human|prompt)\s*>|\[\/?(?:inst|sys|system)\]|<<\/?sys>>|<\/s>/,
  },
  {
    reason: 'role tag spoofing',
    pattern:
      /(?:^|\n)\s*(?:#+\s*|\*\*\s*|\[\s*)?(?:system|assistant|ai|human|sys|bot)\s*(?:\]|\*\*)?\s*[:：]|(?:^|\n)\s*#+\s*(?:developer|user|instructions?)\s*[:：]?/,
  },
  {
    reason: 'tool call spoofing',
    pattern:
      /<\/?(?:tool_call|tool_use|function_call|function_calls|tool_result|invoke|antml|parameter)\b|"(?:tool_calls|function_call|tool_use|tool_choice)"\s*:|\[tool_calls\]|<\|tool_call\|>|<function=|"name"\s*:\s*"[a-z_]+"\s*,\s*"(?:arguments|parameters)"\s*:/,
  },
  // Overriding what came before.
  {
    reason: 'instruction override',
    form: 'skeleton',
    pattern: new RegExp(
      `\\b${IGNORE}\\b(?:\\W+\\w+){0,4}?\\W+${EARLIER}\\b(?:\\W+\\w+){0,3}?\\W+${INSTRUCTIONS}\\b`,
    ),
  },
  {
    reason: 'instruction override',
    form: 'skeleton',
    pattern:
      /\b(?:ignore|disregard|forget) (?:everything|all|anything)(?: (?:you|that|i|we))?(?: (?:were|was|have been))?(?: (?:told|said|above|before|earlier|previously|so far))\b|\bforget everything\b/,
  },
  {
    reason: 'instruction override',
    form: 'skeleton',
    pattern:
      /\bnew (?:instructions?|rules|task|system prompt|directive)s? ?:|\byour (?:new|real|true|actual) (?:task|instructions?|role|purpose|goal) (?:is|are)\b/,
  },
  {
    reason: 'instruction override',
    form: 'skeleton',
    pattern:
      /\b(?:no longer|not) (?:bound|restricted|limited) by\b|\b(?:override|overrides|bypass|disable|turn off) (?:the |your |all )?(?:safety|rules|guidelines|guardrails|polic(?:y|ies)|filters?|restrictions)\b|\b(?:these|this|my) (?:rules|instructions?) (?:override|replace|supersede)\b/,
  },
  // Standing orders aimed at the assistant.
  {
    reason: 'standing order to the assistant',
    form: 'skeleton',
    pattern: new RegExp(
      `\\b(?:from now on|from this point(?: on)?|henceforth|going forward|starting now|for all future|for the rest of (?:the|this) (?:conversation|session))\\b,?(?: \\w+){0,2}? (?:${ASSISTANT}|always|never|${DIRECTIVE})\\b`,
    ),
  },
  {
    reason: 'standing order to the assistant',
    form: 'skeleton',
    pattern: new RegExp(
      `\\b(?:in|to|for|at the (?:start|end|beginning|top|bottom) of) ${EVERY_ANSWER}\\b`,
    ),
  },
  {
    reason: 'standing order to the assistant',
    form: 'skeleton',
    pattern: new RegExp(
      `\\b(?:when(?:ever)?|if|each time|every time|before|after) (?:you are |you're |you |the user |the customer |someone |anyone |they |he |she )?(?:asked|asks|ask|answering|answer|responding|respond|replying|reply)(?: (?:anything|something|any question|a question|about anything))?\\b.*\\b(?:first |then |always |immediately |also )?${ACTION}\\b`,
    ),
  },
  {
    reason: 'standing order to the assistant',
    form: 'skeleton',
    pattern:
      /\b(?:when|whenever|if|each time|every time|once) (?:the )?(?:user|customer|someone|anyone|they) (?:asks?|mentions?|says?|requests?|writes?)\b.*,\s*$/,
  },
  {
    reason: 'standing order to the assistant',
    form: 'skeleton',
    about: 'tool use',
    pattern: new RegExp(
      `\\b${ASSISTANT} (?:must|should|shall|will|need to|needs to|have to|has to|are to|is to|are required to|is required to)(?: (?:always|never|now|from now|only|immediately|first))?\\b`,
    ),
  },
  {
    reason: 'standing order to the assistant',
    form: 'skeleton',
    pattern:
      /\b(?:no matter what|regardless of (?:what|whether|the user|any)|whatever the user (?:says|asks|wants)|even if (?:the user|asked|told))\b/,
  },
  {
    reason: 'standing order to the assistant',
    form: 'skeleton',
    pattern: new RegExp(
      `^(?:please )?(?:always|never|first|before (?:answering|responding|replying)(?: \\w+){0,3}|instead),? (?:${DIRECTIVE})\\b(?=.*\\b(?:answer|response|reply|tool|function|call|user|every|each|result|first)\\b)`,
    ),
  },
  {
    reason: 'standing order to the assistant',
    form: 'skeleton',
    pattern:
      /\b(?:important|attention|note|message|instruction|warning)s? (?:to|for) (?:the )?(?:ai|assistant|model|llm|agent|bot|chatbot)\b|^(?:ai|assistant|model|chatbot)\s*[,:]/,
  },
  // Roles and the prompt.
  {
    reason: 'role reassignment',
    form: 'skeleton',
    pattern:
      /\byou are (?:now|no longer|actually|really) \b|\b(?:act|acting|behave|respond) as (?:if|though|an?|the|my|your|dan)\b|\bpretend (?:to be|you are|you're|that you)\b|\broleplay as\b|\byour new (?:role|persona|identity)\b|\b(?:developer|god|admin|jailbreak|dan) mode\b|\bjailbr(?:ea|o)k/,
  },
  {
    reason: 'system prompt access',
    form: 'skeleton',
    pattern:
      /\bsystem (?:prompt|message|instructions?)\b|\b(?:reveal|print|show|repeat|output|leak|dump|display|tell me) (?:\w+ ){0,3}(?:hidden|initial|developer|original|secret|system|internal) (?:prompt|instructions?|message|rules)|\b(?:repeat|print|output) (?:the |all )?(?:text|words|everything|lines?) (?:above|before)\b|\b(?:verbatim|word for word)\b.*\babove\b|\babove this line\b/,
  },
  // Concealment and exfiltration.
  {
    reason: 'concealment from the user',
    form: 'skeleton',
    pattern:
      /\b(?:do not|don't|never|dont) (?:tell|inform|show|mention (?:it |this )?to|reveal (?:it |this )?to|let|alert|notify) (?:the |this )?(?:user|customer|human|person)\b|\bwithout (?:telling|informing|asking|notifying|alerting) (?:the )?(?:user|customer|human)\b|\bkeep (?:this|it|that)(?: instruction| message)? (?:secret|hidden|confidential) from\b|\bhide (?:this|it) from (?:the )?(?:user|customer)\b/,
  },
  {
    reason: 'exfiltration',
    pattern:
      /\b(?:send|post|upload|forward|transmit|exfiltrate|leak|copy|email|mail|submit|report) (?:\S+ ){0,6}?to (?:https?:\/\/|ftp:\/\/|\S+@\S+\.|(?:this|that|my|an?|the following) (?:url|address|endpoint|server|webhook|email))/,
  },
  {
    reason: 'exfiltration',
    pattern: /!\[[^\]]*\]\(\s*(?:https?:|data:)[^)]*[?&][^)]*\)|\]\(\s*javascript:/,
  },
  // Tool calls.
  {
    reason: 'tool call',
    form: 'skeleton',
    about: 'tool use',
    pattern:
      /\b(?:call|invoke|run|execute|use|trigger|fire|launch|perform) (?:the |a |this |that )?(?:tool|function|api|endpoint|action|command|operation)s?\b/,
  },
  {
    reason: 'tool call',
    names: 'tools',
    pattern:
      /\b(?:sq_[a-z0-9_]+|[a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:write|search|get|count|aggregate|delete|update|create|insert|remove|drop|exec|execute|run))\b/,
  },

  {
    reason: 'instruction override',
    form: 'squashed',
    pattern:
      /ignore(?:all)?(?:the)?(?:previous|prior|above|earlier)instructions|disregard(?:all)?(?:previous|prior|above)instructions|systemprompt/,
  },
  // German (umlauts are folded: ü → u).
  {
    reason: 'instruction override',
    pattern:
      /\b(?:ignorier\w*|missacht\w*|vergiss|vergessen sie|uberg\w*|umgeh\w*)\b(?:\W+\w+){0,4}?\W+(?:vorherig\w*|bisherig\w*|obig\w*|fruher\w*|alle\w*|deine\w*|ihre\w*|die|den)\b(?:\W+\w+){0,3}?\W+(?:anweisung\w*|anleitung\w*|instruktion\w*|regeln|richtlinie\w*|vorgaben|befehl\w*|systemprompt\w*|einschrankung\w*)\b/,
  },
  {
    reason: 'standing order to the assistant',
    pattern:
      /\b(?:ab sofort|ab jetzt|von nun an|von jetzt an|kunftig|in zukunft)\b.*\b(?:du|sie|immer|nie|niemals|fuge|antworte\w*|rufe|sende|gib|zeige|schreib\w*)\b|\bin jede(?:r|n)? (?:antwort|nachricht|ausgabe)\b|\b(?:vor|nach) jeder antwort\b|\b(?:rufe|ruf)\b.*\bauf\b.*\b(?:tool|funktion|werkzeug)\b/,
  },
  {
    reason: 'concealment from the user',
    pattern:
      /\b(?:sag|sage|erzahl|erzahle|verrat|verrate|teile)\w* (?:dem|der|den) (?:benutzer\w*|nutzer\w*|anwender\w*|kunde\w*)\w* (?:nicht|nichts)\b|\bohne (?:dem|den|die) (?:benutzer|nutzer|kunden?) (?:zu )?(?:sagen|informieren)\b/,
  },
  {
    reason: 'role reassignment',
    pattern:
      /\bdu bist (?:jetzt|nun|ab sofort)\b|\bgib vor,? (?:du|dass du)\b|\bspiele die rolle\b/,
  },
  // French (accents folded).
  {
    reason: 'instruction override',
    pattern:
      /\b(?:ignore[rsz]?|oublie[rsz]?|ne tiens? pas compte|contourne[rsz]?|outrepasse[rsz]?)\b(?:\W+\w+){0,4}?\W+(?:instructions?|consignes?|regles|directives?|prompt|invite|restrictions?|politiques?)\b/,
  },
  {
    reason: 'standing order to the assistant',
    pattern:
      /\b(?:a partir de maintenant|desormais|dorenavant|a l'avenir|a partir d'aujourd'hui)\b.*\b(?:tu|vous|toujours|jamais|inclu\w*|ajout\w*|reponds?|repondez|appel\w*|envo\w*|affich\w*|revel\w*)\b|\bdans (?:chaque|toutes? les) (?:reponses?|messages?)\b|\b(?:appelle[rsz]?|invoque[rsz]?|execute[rsz]?) (?:l'outil|la fonction|l'action)\b/,
  },
  {
    reason: 'concealment from the user',
    pattern:
      /\bne (?:dis|dites|revele|revelez|montre|montrez) (?:pas|rien|jamais) a l'utilisat\w*|\bsans (?:le dire|prevenir|informer) (?:a )?l'utilisat\w*/,
  },
  {
    reason: 'role reassignment',
    pattern: /\b(?:tu es|vous etes) (?:maintenant|desormais|dorenavant)\b|\bfais semblant d'etre\b/,
  },
  // Spanish and Portuguese.
  {
    reason: 'instruction override',
    pattern:
      /\b(?:ignora[rs]?|ignore[ms]?|olvida[rs]?|esquec[ae]\w*|omite|omita|desconsidera[rs]?|desconsidere)\b(?:\W+\w+){0,4}?\W+(?:instrucc?(?:iones|ion|oes|ao)|reglas|regras|directrices|diretrizes|indicaciones|prompt|restricc?(?:iones|oes))\b/,
  },
  {
    reason: 'standing order to the assistant',
    pattern:
      /\b(?:a partir de ahora|de ahora en adelante|desde ahora|a partir de agora|de agora em diante|daqui em diante)\b.*\b(?:tu|voce|siempre|sempre|nunca|incluy\w*|inclua|inclui\w*|responde\w*|llama\w*|chame|envi\w*|muestra|mostre)\b|\ben (?:cada|todas las) respuestas?\b|\bem (?:cada|todas as) respostas?\b|\b(?:llama|chame|chama|invoca|ejecuta|executa|execute)\b(?:\W+\w+){0,2}?\W+(?:herramienta|ferramenta|funcion|funcao)\b/,
  },
  {
    reason: 'concealment from the user',
    pattern:
      /\bno (?:le )?(?:digas|diga|cuentes|menciones) (?:nada )?al usuario\b|\bnao (?:diga|conte|fale|mencione) (?:nada )?ao usuario\b/,
  },
  {
    reason: 'role reassignment',
    pattern:
      /\bahora eres\b|\bagora (?:voce|tu) e\b|\bfinge (?:que eres|ser)\b|\bfinja (?:que e|ser)\b/,
  },
  // Italian and Dutch.
  {
    reason: 'instruction override',
    pattern:
      /\b(?:ignora|ignorare|dimentica|dimenticare|negeer|vergeet)\b(?:\W+\w+){0,4}?\W+(?:istruzioni|regole|direttive|prompt|instructies|regels|richtlijnen|aanwijzingen)\b/,
  },
  {
    reason: 'standing order to the assistant',
    pattern:
      /\b(?:d'ora in poi|da ora in poi|da adesso|vanaf nu|voortaan|van nu af aan)\b.*\b(?:tu|sempre|mai|includi|aggiungi|rispondi|chiama|invia|je|jij|altijd|nooit|voeg|antwoord|roep|stuur)\b|\bin ogni risposta\b|\b(?:aan|in) elk antwoord\b/,
  },
  {
    reason: 'concealment from the user',
    pattern:
      /\bnon dire (?:nulla )?all'utente\b|\bvertel (?:de|het) (?:gebruiker|klant) niet\b|\bzonder (?:de )?gebruiker te (?:vertellen|informeren)\b/,
  },
  // Russian (й folded to и, ё to е).
  {
    reason: 'instruction override',
    pattern:
      /(?:игнорир\p{L}*|проигнорир\p{L}*|забудь\p{L}*|не обращаи\p{L}* внимания на|отбрось\p{L}*|пренебреги)(?:[^\p{L}]+\p{L}+){0,4}?[^\p{L}]+(?:инструкц\p{L}*|указани\p{L}*|правил\p{L}*|ограничени\p{L}*|промпт\p{L}*|директив\p{L}*|команд\p{L}*)/u,
  },
  {
    reason: 'standing order to the assistant',
    pattern:
      /(?:с этого момента|отныне|впредь|с сегодняшнего дня|теперь всегда)[^.!?]*(?:ты|всегда|никогда|добавляи|включаи|отвечаи|вызови|вызываи|отправ\p{L}*|показываи)|в (?:каждыи|каждом|любои|любом) ответ\p{L}*|(?:вызови|вызываи|запусти|выполни)[^.!?]*(?:инструмент|функци)/u,
  },
  {
    reason: 'concealment from the user',
    pattern:
      /не (?:говори|сообщаи|рассказываи|показываи)\p{L}* пользовател\p{L}*|без ведома пользовател\p{L}*/u,
  },
  {
    reason: 'role reassignment',
    pattern: /(?:теперь|отныне) ты\b|ты теперь|притворись|представь, что ты/u,
  },
  {
    reason: 'system prompt access',
    pattern: /системн\p{L}* (?:промпт|подсказк|инструкц|сообщени)\p{L}*/u,
  },
  // Chinese (simplified and traditional characters).
  {
    reason: 'instruction override',
    pattern:
      /(?:忽略|忽視|忽视|无视|無視|忘记|忘記|忘掉|不要理会|不要理會|不要管|跳过|跳過|绕过|繞過|无需遵守|無需遵守)[^。\n]{0,12}(?:之前|以上|上面|前面|先前|此前|所有|全部|一切|原有|系统|系統|原来|原來)[^。\n]{0,12}(?:指令|指示|提示词?|提示詞|规则|規則|要求|设定|設定|命令|约束|約束|限制)/u,
  },
  {
    reason: 'standing order to the assistant',
    pattern:
      /(?:从现在开始|從現在開始|从现在起|從現在起|从今以后|從今以後|今后|今後|以后每次|以後每次)[^。\n]*(?:你|都要|总是|總是|必须|必須|一律|包含|加上|调用|調用|呼叫|回复|回覆)|每(?:次|一次|个|個)(?:回答|回复|回覆|答复|答覆)|(?:无论|無論|不管)(?:用户|用戶|使用者|对方|對方)?(?:问|問|说|說)什么|(?:无论|無論|不管)(?:用户|用戶|使用者)?(?:问|問|说|說)什麼|(?:先|请|請|要)?(?:调用|調用|呼叫|执行|執行)\s*(?:[a-z_]+|工具|函数|函數)/u,
  },
  {
    reason: 'concealment from the user',
    pattern:
      /(?:不要|别|別|切勿|不准|不可以)(?:告诉|告訴|通知|让|讓|透露给|透露給)(?:用户|用戶|使用者|客户|客戶)/u,
  },
  {
    reason: 'role reassignment',
    pattern:
      /你现在(?:是|扮演|作为)|你現在(?:是|扮演|作為)|(?:你来?扮演|你來?扮演|请扮演|請扮演|假装你是|假裝你是|假装成|假裝成)/u,
  },
  {
    reason: 'system prompt access',
    pattern:
      /系统提示|系統提示|(?:泄露|洩露|输出|輸出|显示|顯示|重复|重複)[^。\n]{0,6}(?:提示词|提示詞|系统指令|系統指令)/u,
  },
  // Japanese.
  {
    reason: 'instruction override',
    pattern:
      /(?:これまで|以前|前|上記|今まで|すべて|全て)の?(?:指示|命令|ルール|指令|プロンプト|設定|制約)[^。\n]{0,10}(?:無視|忘れ|従わな)|(?:指示|命令|ルール)[^。\n]{0,6}(?:を)?無視/u,
  },
  {
    reason: 'standing order to the assistant',
    pattern:
      /(?:今後は|これからは|今から|以後)[^。\n]*(?:必ず|常に|すべての|全ての|含め|呼び出|実行|回答|返答)|(?:すべて|全て|毎回|各)の?(?:回答|返答|応答)に|(?:を|も)?呼び出して|(?:ツール|関数)を(?:使|実行|呼)/u,
  },
  {
    reason: 'concealment from the user',
    pattern:
      /ユーザー(?:には|に)[^。\n]{0,20}(?:言わない|伝えない|知らせない|教えない|言わず|伝えず)/u,
  },
  {
    reason: 'role reassignment',
    pattern:
      /あなたは(?:今から|これから|今|もう)[^。\n]{0,20}(?:です|だ|として)|(?:の)?ふりをして/u,
  },
  { reason: 'system prompt access', pattern: /システムプロンプト|システム(?:の)?指示/u },
  // Korean.
  {
    reason: 'instruction override',
    pattern:
      /(?:이전|앞|위|기존|모든)[^.\n]{0,8}(?:지시|명령|규칙|지침|프롬프트|설정)[^.\n]{0,6}(?:무시|잊어)/u,
  },
  {
    reason: 'standing order to the assistant',
    pattern:
      /(?:지금부터|이제부터|앞으로는?|오늘부터)[^.\n]*(?:항상|반드시|모든|포함|호출|실행|답|대답)|모든 (?:답변|대답|응답)에|(?:를|을)? ?호출(?:해|하고|하여|해서|하세요)|(?:도구|함수|툴)를? ?(?:사용|실행|호출)/u,
  },
  {
    reason: 'concealment from the user',
    pattern: /사용자(?:에게|한테)[^.\n]{0,20}(?:말하지 ?마|알리지 ?마|말하지 않|알리지 않)/u,
  },
  { reason: 'role reassignment', pattern: /(?:너는|당신은) 이제|(?:인 척|척을) ?(?:해|하세요)/u },
  { reason: 'system prompt access', pattern: /시스템 ?프롬프트/u },
];

/**
 * Why `text` reads as instructions to a model ("instruction override", "tool call", …), or
 * undefined when it reads as plain content. A name in `context.toolNames` anywhere in the
 * text counts as a tool call.
 */
export function findInjection(text: string, context: InstructionContext = {}): string | undefined {
  const forms = screenForms(text);
  for (const { reason, form, pattern, names, about } of RULES) {
    if (names === 'tools' && context.allowToolNames === true) continue;
    if (about === 'tool use' && context.describesTool === true) continue;
    if (pattern.test(forms[form ?? 'plain'])) return reason;
  }
  if (
    context.allowToolNames !== true &&
    context.toolNames !== undefined &&
    context.toolNames.size > 0
  ) {
    for (const word of forms.plain.match(/[a-z][a-z0-9_]{2,63}/g) ?? []) {
      if (context.toolNames.has(word)) return 'names a tool';
    }
  }
  return undefined;
}
